/*
 * btvirt-address.so: an LD_PRELOAD library for BlueZ's btvirt that gives one of its virtual controllers another
 * public address, for the VM tier's buttonless scenario (a bootloader at the application's address + 1).
 *
 * btvirt 5.66 names its controllers 00:AA:01:<slot>:00:<index>, so no two of them differ in the last byte only,
 * and the kernel's vhci driver cannot set a public address (mgmt Set Public Address: not supported). A static
 * random address does not help either: bluetoothd 5.66 keeps its ATT listener on the public address, so the
 * kernel answers no ATT request on a link to the static one (and 6.1 hit a list_del BUG tearing such a link down).
 *
 * So this library rewrites the address at the only boundary the kernel sees: the HCI packets btvirt exchanges with
 * /dev/vhci. With BTVIRT_ADDRESS=INTERNAL=EXTERNAL (e.g. 00:AA:01:02:00:02=00:AA:01:01:00:02), every HCI event
 * btvirt writes has INTERNAL replaced by EXTERNAL (Read BD_ADDR, advertising reports, connection events), and every
 * HCI command it reads has EXTERNAL replaced by INTERNAL (LE Create Connection, accept lists). ACL data is left
 * alone. For the kernel, bluetoothd and nrfloader the controller simply has the address EXTERNAL.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum { MAX_FDS = 1024, H4_COMMAND = 0x01, H4_EVENT = 0x04 };

/* The two addresses in wire order (least significant byte first). */
static unsigned char internal_address[6], external_address[6];
static int enabled;
static unsigned char is_vhci[MAX_FDS];

/* Parses the 17 characters of "AA:BB:CC:DD:EE:FF" at `text`, followed by `terminator`. */
static int parse_address(const char *text, char terminator, unsigned char *wire)
{
	unsigned int bytes[6];
	int consumed = 0;

	if (sscanf(text, "%2x:%2x:%2x:%2x:%2x:%2x%n", &bytes[0], &bytes[1], &bytes[2], &bytes[3], &bytes[4],
		   &bytes[5], &consumed) != 6 ||
	    consumed != 17 || text[17] != terminator)
		return 0;
	for (int i = 0; i < 6; i++)
		wire[5 - i] = (unsigned char)bytes[i];
	return 1;
}

__attribute__((constructor)) static void configure(void)
{
	const char *specification = getenv("BTVIRT_ADDRESS");

	if (!specification)
		return;
	if (strlen(specification) != 35 || !parse_address(specification, '=', internal_address) ||
	    !parse_address(specification + 18, '\0', external_address)) {
		fprintf(stderr, "btvirt-address: BTVIRT_ADDRESS must be INTERNAL=EXTERNAL, not '%s'\n", specification);
		exit(2);
	}
	enabled = 1;
}

/* Replaces every `from` in an HCI command or event packet (H4 framed) with `to`. */
static void rewrite(unsigned char *packet, size_t length, const unsigned char *from, const unsigned char *to)
{
	if (length < 7 || (packet[0] != H4_COMMAND && packet[0] != H4_EVENT))
		return;
	for (size_t i = 1; i + 6 <= length; i++) {
		if (memcmp(packet + i, from, 6) == 0) {
			memcpy(packet + i, to, 6);
			i += 5;
		}
	}
}

static int tracked(int fd)
{
	return enabled && fd >= 0 && fd < MAX_FDS && is_vhci[fd];
}

int open(const char *path, int flags, ...)
{
	static int (*real_open)(const char *, int, ...);
	mode_t mode = 0;
	int fd;

	if (!real_open)
		real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list arguments;

		va_start(arguments, flags);
		mode = (mode_t)va_arg(arguments, int);
		va_end(arguments);
	}
	fd = real_open(path, flags, mode);
	if (fd >= 0 && fd < MAX_FDS)
		is_vhci[fd] = strcmp(path, "/dev/vhci") == 0;
	return fd;
}

int close(int fd)
{
	static int (*real_close)(int);

	if (!real_close)
		real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	if (fd >= 0 && fd < MAX_FDS)
		is_vhci[fd] = 0;
	return real_close(fd);
}

/* The host's commands and data, as btvirt reads them from the kernel. */
ssize_t read(int fd, void *buffer, size_t count)
{
	static ssize_t (*real_read)(int, void *, size_t);
	ssize_t length;

	if (!real_read)
		real_read = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	length = real_read(fd, buffer, count);
	if (length > 0 && tracked(fd))
		rewrite(buffer, (size_t)length, external_address, internal_address);
	return length;
}

/* The controller's events and data, as btvirt writes them to the kernel: one packet per call. */
ssize_t writev(int fd, const struct iovec *vector, int count)
{
	static ssize_t (*real_writev)(int, const struct iovec *, int);
	unsigned char *packet;
	size_t length = 0, offset = 0;
	struct iovec whole;
	ssize_t written;

	if (!real_writev)
		real_writev = (ssize_t (*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
	if (!tracked(fd))
		return real_writev(fd, vector, count);
	for (int i = 0; i < count; i++)
		length += vector[i].iov_len;
	packet = malloc(length ? length : 1);
	if (!packet)
		return real_writev(fd, vector, count);
	for (int i = 0; i < count; i++) {
		memcpy(packet + offset, vector[i].iov_base, vector[i].iov_len);
		offset += vector[i].iov_len;
	}
	rewrite(packet, length, internal_address, external_address);
	whole.iov_base = packet;
	whole.iov_len = length;
	written = real_writev(fd, &whole, 1);
	free(packet);
	return written;
}
