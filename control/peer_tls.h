/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PEER_TLS_H
#define LONGSPAN_PEER_TLS_H

/*
 * TLS 1.3 over TCP for the gateway peering (OpenSSL 3), mutually
 * authenticated and never blocking.
 *
 * Credentials (struct peer_tls_ctx): a CA file, this gateway's certificate
 * (chain) and key, and optionally a CRL, read into memory, hashed
 * (SHA-256) and turned into an SSL_CTX. peer_tls_ctx_reload() re-reads the
 * files and builds a new SSL_CTX only when a hash changed; connections keep
 * a reference to the SSL_CTX they were made with, so a reload never drops
 * a running session (peer_tls_reverify() checks it against the new CA and
 * CRL). Only TLS 1.3 is offered and accepted; session tickets and
 * resumption are off, so every connection verifies the full chain.
 *
 * Verification of the other side, on both the client and the server side:
 * chain to the configured CA, validity dates, the CRL when one is
 * configured (X509_V_FLAG_CRL_CHECK: the peer's own certificate), key
 * usage for TLS client and server, and a subjectAltName of DNS form equal
 * to the configured site name (case-insensitive, no wildcards, the subject
 * CN is never used). A server requires a client certificate.
 *
 * Connections (struct peer_tls_conn): every call returns at once. A call
 * that cannot finish returns PEER_TLS_IO_AGAIN and sets conn->events to
 * what it waits for (POLLIN or POLLOUT); the caller polls the fd and calls
 * again, and calling again early is harmless. A failure closes nothing:
 * it sets conn->reason (peer_reason.h) and conn->detail, and the caller
 * ends the connection with peer_tls_close().
 *
 * A server connection first peeks at the first byte: a TLS handshake
 * record starts with 0x16, anything else (a plaintext client, garbage) is
 * refused as not_tls without handing the bytes to OpenSSL.
 *
 * Threads: the control thread only (OpenSSL's error queue is per thread).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "peer_reason.h"

struct ssl_ctx_st; /* OpenSSL's SSL_CTX and SSL, kept out of this header */
struct ssl_st;

#define PEER_TLS_PATH_MAX 256
#define PEER_TLS_DETAIL_MAX 160
#define PEER_TLS_FILE_MAX_BYTES (1u << 20) /* a larger credential file is refused */
#define PEER_TLS_SITE_MAX 63 /* characters of an expected site name */

/* Where the credentials are; crl "" = no CRL check. */
struct peer_tls_files {
	char ca[PEER_TLS_PATH_MAX];
	char cert[PEER_TLS_PATH_MAX];
	char key[PEER_TLS_PATH_MAX];
	char crl[PEER_TLS_PATH_MAX];
};

enum peer_tls_file {
	PEER_TLS_FILE_CA = 0,
	PEER_TLS_FILE_CERT,
	PEER_TLS_FILE_KEY,
	PEER_TLS_FILE_CRL,
	PEER_TLS_FILE_MAX,
};

/* Owner: the peering manager, control thread. */
struct peer_tls_ctx {
	struct ssl_ctx_st *ssl_ctx; /* for new connections */
	struct peer_tls_files files;
	uint8_t digest[PEER_TLS_FILE_MAX][32]; /* SHA-256 of each file as loaded */
	uint64_t generation; /* 1 after init, +1 per reload that changed a file */
};

/*
 * Load FILES and build the context. Returns 0, or a negative errno with a
 * message in err ("peering: cert /etc/...: no certificate in file"); *t is
 * zeroed on failure.
 */
int peer_tls_ctx_init(struct peer_tls_ctx *t, const struct peer_tls_files *files, char *err,
		      size_t err_size);

/*
 * Re-read the files. Returns 0 when every file is byte-for-byte the same
 * (nothing changes), 1 when a new SSL_CTX was built and installed for new
 * connections, or a negative errno with a message: the old context stays.
 */
int peer_tls_ctx_reload(struct peer_tls_ctx *t, char *err, size_t err_size);

void peer_tls_ctx_free(struct peer_tls_ctx *t);

enum peer_tls_state {
	PEER_TLS_CLOSED = 0,
	PEER_TLS_CONNECTING, /* outbound TCP connect in progress */
	PEER_TLS_PEEK, /* inbound: waiting for the first byte */
	PEER_TLS_HANDSHAKE,
	PEER_TLS_OPEN, /* handshake done, peer verified */
};

enum peer_tls_io {
	PEER_TLS_IO_OK = 0, /* done, or bytes moved */
	PEER_TLS_IO_AGAIN, /* wait for conn->events on conn->fd */
	PEER_TLS_IO_EOF, /* orderly end (close_notify or TCP FIN) */
	PEER_TLS_IO_FAIL, /* conn->reason and conn->detail say why */
};

struct peer_tls_conn {
	int fd; /* -1 when closed */
	struct ssl_st *ssl;
	enum peer_tls_state state;
	bool outbound;
	bool fatal; /* OpenSSL reported a fatal error: no close_notify */
	short events; /* POLLIN / POLLOUT the last AGAIN waits for */
	char site[PEER_TLS_SITE_MAX + 1]; /* the peer's site name, checked in its SAN */
	enum peer_reason reason;
	char detail[PEER_TLS_DETAIL_MAX];
};

/*
 * Open an outbound connection to REMOTE, from LOCAL when local_len > 0,
 * expecting a certificate that names SITE. Returns 0 (then drive it with
 * peer_tls_handshake()) or a negative errno with c->reason set.
 */
int peer_tls_connect(struct peer_tls_conn *c, const struct peer_tls_ctx *t,
		     const struct sockaddr *remote, socklen_t remote_len,
		     const struct sockaddr *local, socklen_t local_len, const char *site);

/*
 * Take an accepted, non-blocking socket FD (owned by C from here, even on
 * failure) and expect a client certificate that names SITE.
 */
int peer_tls_accept(struct peer_tls_conn *c, const struct peer_tls_ctx *t, int fd,
		    const char *site);

/* Drive the TCP connect and the TLS handshake; PEER_TLS_IO_OK once open. */
enum peer_tls_io peer_tls_handshake(struct peer_tls_conn *c);

/* Read up to CAP bytes of application data into BUF; *n = bytes read. */
enum peer_tls_io peer_tls_read(struct peer_tls_conn *c, void *buf, size_t cap, size_t *n);

/* Write up to LEN bytes; *n = bytes taken (partial writes happen). */
enum peer_tls_io peer_tls_write(struct peer_tls_conn *c, const void *buf, size_t len, size_t *n);

/* Bytes OpenSSL has decrypted and not yet returned (no poll event for them). */
bool peer_tls_pending(const struct peer_tls_conn *c);

/*
 * Verify the open connection's peer certificate again against T (a
 * reloaded CA or CRL). Returns PEER_REASON_NONE, or the reason to end it.
 */
enum peer_reason peer_tls_reverify(struct peer_tls_conn *c, const struct peer_tls_ctx *t);

/* Send close_notify if the socket takes it now, free, close the fd. */
void peer_tls_close(struct peer_tls_conn *c);

/*
 * A listening TCP socket on ADDR, non-blocking, SO_REUSEADDR. Returns the
 * fd or a negative errno with a message in err.
 */
int peer_tls_listen(const struct sockaddr *addr, socklen_t len, char *err, size_t err_size);

#endif /* LONGSPAN_PEER_TLS_H */
