/* Soft-RoCE (rdma_rxe) provider: shared declarations. */
#ifndef RXE_H
#define RXE_H

#include "provider.h"

#endif
