/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/fuzz/fuzz_log.c -- the log line formatter (lib/log.c), fed any
 * bytes as the function name and the message, at line buffers of every
 * size: whatever it is given, the line fits, ends in its only newline,
 * holds no control byte and no byte from 0x7f up, and, unless it was cut
 * ("...\n"), unescapes to exactly the message. Input: one byte of buffer
 * size, then the name, a NUL, the message. */
#include "config.h"

#include <stdlib.h>

#include "core.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy, *func, *msg, *line, *body, *back;
	size_t cap, n, len, k = 0;

	if (size < 1)
		return 0;
	cap = 16 + (size_t)data[0] * 8; /* 16 .. 2056 */
	copy = malloc(size + 1);
	line = malloc(cap);
	back = malloc(size + 1);
	if (!copy || !line || !back)
		abort();
	memcpy(copy, data + 1, size - 1);
	copy[size - 1] = '\0';
	func = copy;
	msg = func + strlen(func) + 1 <= copy + size - 1 ? func + strlen(func) + 1 : copy + size - 1;

	n = sv_log_format_line(line, cap, SV_LOG_WARN, func, msg);
	if (cap < 64) {
		if (n)
			abort();
		goto out;
	}
	if (!n || n > cap || line[n - 1] != '\n' || memchr(line, '\n', n) != line + n - 1)
		abort();
	for (size_t i = 0; i + 1 < n; i++)
		if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] >= 0x7f)
			abort();
	if (n >= 4 && !memcmp(line + n - 4, "...\n", 4))
		goto out; /* cut: only the shape is promised */
	/* whole: after "softverbs[PID] W ", the escaped name and ": ", the
	 * rest reads back as the message */
	body = memmem(line, n, "] W ", 4);
	if (!body)
		abort();
	body += 4;
	for (const unsigned char *f = (const unsigned char *)func; *f; f++)
		body += *f == '\n' || *f == '\\' ? 2 : *f < 0x20 || *f >= 0x7f ? 4 : 1;
	if (body + 2 > line + n || body[0] != ':' || body[1] != ' ')
		abort();
	body += 2;
	len = (size_t)(line + n - 1 - body);
	for (size_t i = 0; i < len; i++) {
		if (body[i] != '\\') {
			back[k++] = body[i];
		} else if (body[i + 1] == 'n') {
			back[k++] = '\n', i++;
		} else if (body[i + 1] == '\\') {
			back[k++] = '\\', i++;
		} else if (body[i + 1] == 'x') {
			back[k++] = (char)strtoul((char[]){ body[i + 2], body[i + 3], 0 }, NULL, 16);
			i += 3;
		} else {
			abort();
		}
	}
	if (k != strlen(msg) || memcmp(back, msg, k))
		abort();
out:
	free(copy);
	free(line);
	free(back);
	return 0;
}
