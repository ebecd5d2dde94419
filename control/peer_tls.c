/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TLS 1.3 peering connections over non-blocking TCP (peer_tls.h).
 *
 * Sockets go through a small BIO of our own instead of OpenSSL's socket
 * BIO: it sends with MSG_NOSIGNAL, so a peer that resets the connection
 * cannot kill the process with SIGPIPE whatever the caller's signal
 * disposition, and it never blocks (MSG_DONTWAIT).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "peer_tls.h"

#define PEER_TLS_RECORD_HANDSHAKE 0x16 /* TLS record content type, RFC 8446 section 5.1 */
#define PEER_TLS_HOSTFLAGS (X509_CHECK_FLAG_NO_WILDCARDS | X509_CHECK_FLAG_NEVER_CHECK_SUBJECT)
#define PEER_TLS_VERIFY_DEPTH 4 /* leaf, intermediates, CA */

static const char *const peer_tls_file_names[PEER_TLS_FILE_MAX] = { "ca", "cert", "key", "crl" };

/* The first queued OpenSSL error as text, or "unknown error"; clears the queue. */
static const char *
peer_tls_ssl_errstr(char *buf, size_t size)
{
	unsigned long e = ERR_peek_error();

	if (e == 0)
		snprintf(buf, size, "unknown error");
	else
		ERR_error_string_n(e, buf, size);
	ERR_clear_error();
	return buf;
}

/* --- the socket BIO --- */

static int
peer_bio_write(BIO *b, const char *buf, int len)
{
	int fd = (int)(intptr_t)BIO_get_data(b);
	ssize_t n = send(fd, buf, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT);

	BIO_clear_retry_flags(b);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		BIO_set_retry_write(b);
	return (int)n;
}

static int
peer_bio_read(BIO *b, char *buf, int len)
{
	int fd = (int)(intptr_t)BIO_get_data(b);
	ssize_t n = recv(fd, buf, (size_t)len, MSG_DONTWAIT);

	BIO_clear_retry_flags(b);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		BIO_set_retry_read(b);
	return (int)n;
}

static long
peer_bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
	(void)b;
	(void)num;
	(void)ptr;
	/* Writes go straight to the socket: nothing to flush. */
	return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

static int
peer_bio_create(BIO *b)
{
	BIO_set_init(b, 1);
	return 1;
}

/* One method for the process, made on first use, never freed. */
static BIO_METHOD *
peer_bio_method(void)
{
	static BIO_METHOD *m;

	if (m != NULL)
		return m;
	m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "longspan peer socket");
	if (m == NULL)
		return NULL;
	if (!BIO_meth_set_write(m, peer_bio_write) || !BIO_meth_set_read(m, peer_bio_read) ||
	    !BIO_meth_set_ctrl(m, peer_bio_ctrl) || !BIO_meth_set_create(m, peer_bio_create)) {
		BIO_meth_free(m);
		m = NULL;
	}
	return m;
}

/* --- credentials --- */

/* A key file is never encrypted here; the default would prompt on the tty. */
static int
peer_tls_no_password(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return 0;
}

struct peer_tls_blob {
	uint8_t *data;
	size_t size;
};

static int
peer_tls_read_file(const char *what, const char *path, struct peer_tls_blob *b, char *err,
		   size_t err_size)
{
	struct stat st;
	size_t got = 0;
	int fd, rc;

	b->data = NULL;
	b->size = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		peer_err_printf(err, err_size, "peering: %s %s: %s", what, path, strerror(errno));
		return rc;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > PEER_TLS_FILE_MAX_BYTES) {
		peer_err_printf(err, err_size, "peering: %s %s: not a regular file of at most %u bytes",
			     what, path, PEER_TLS_FILE_MAX_BYTES);
		close(fd);
		return -EINVAL;
	}
	b->data = malloc((size_t)st.st_size + 1);
	if (b->data == NULL) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, b->data + got, (size_t)st.st_size - got);

		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			peer_err_printf(err, err_size, "peering: %s %s: short read", what, path);
			free(b->data);
			b->data = NULL;
			close(fd);
			return rc;
		}
		got += (size_t)n;
	}
	close(fd);
	b->size = got;
	return 0;
}

/* Every certificate and CRL of B in file order; NULL when B is not clean PEM. */
static STACK_OF(X509_INFO) *
peer_tls_pem_read(const struct peer_tls_blob *b)
{
	BIO *bio = BIO_new_mem_buf(b->data, (int)b->size);
	STACK_OF(X509_INFO) *items = NULL;

	if (bio != NULL)
		items = PEM_X509_INFO_read_bio(bio, NULL, peer_tls_no_password, NULL);
	BIO_free(bio);
	return items;
}

/* The certificates (or, with CRLS, the CRLs) of B into STORE: how many, or -1. */
static int
peer_tls_load_store(X509_STORE *store, const struct peer_tls_blob *b, bool crls)
{
	STACK_OF(X509_INFO) *items = peer_tls_pem_read(b);
	int i, n = 0;

	if (items == NULL)
		return -1;
	for (i = 0; i < sk_X509_INFO_num(items) && n >= 0; i++) {
		const X509_INFO *it = sk_X509_INFO_value(items, i);

		if (!crls && it->x509 != NULL)
			n = X509_STORE_add_cert(store, it->x509) ? n + 1 : -1;
		else if (crls && it->crl != NULL)
			n = X509_STORE_add_crl(store, it->crl) ? n + 1 : -1;
	}
	sk_X509_INFO_pop_free(items, X509_INFO_free);
	return n;
}

/* Leaf certificate, then any intermediates, from B into CTX: how many, or -1. */
static int
peer_tls_load_cert(SSL_CTX *ctx, const struct peer_tls_blob *b)
{
	STACK_OF(X509_INFO) *items = peer_tls_pem_read(b);
	int i, n = 0;

	if (items == NULL)
		return -1;
	for (i = 0; i < sk_X509_INFO_num(items) && n >= 0; i++) {
		X509 *x = sk_X509_INFO_value(items, i)->x509;

		if (x != NULL)
			n = (n == 0 ? SSL_CTX_use_certificate(ctx, x) : SSL_CTX_add1_chain_cert(ctx, x))
				    ? n + 1
				    : -1;
	}
	sk_X509_INFO_pop_free(items, X509_INFO_free);
	return n;
}

/* 0, -1 when B holds no usable key, -2 when the key is not the certificate's. */
static int
peer_tls_load_key(SSL_CTX *ctx, const struct peer_tls_blob *b)
{
	BIO *bio = BIO_new_mem_buf(b->data, (int)b->size);
	EVP_PKEY *k;
	int ok;

	if (bio == NULL)
		return -1;
	k = PEM_read_bio_PrivateKey(bio, NULL, peer_tls_no_password, NULL);
	BIO_free(bio);
	if (k == NULL)
		return -1;
	ERR_clear_error();
	ok = SSL_CTX_use_PrivateKey(ctx, k);
	EVP_PKEY_free(k);
	if (ok && SSL_CTX_check_private_key(ctx))
		return 0;
	ERR_clear_error();
	return -2;
}

/*
 * An SSL_CTX from the file contents: TLS 1.3 only, no tickets, no session
 * cache, peer certificate required, partial writes (the session layer
 * keeps its own send buffer).
 */
static SSL_CTX *
peer_tls_build(const struct peer_tls_files *f, const struct peer_tls_blob *blob, char *err,
	       size_t err_size)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_method());
	X509_STORE *store;
	char ebuf[160];
	int n;

	if (ctx == NULL) {
		peer_err_printf(err, err_size, "peering: cannot create a TLS context: %s",
			     peer_tls_ssl_errstr(ebuf, sizeof(ebuf)));
		return NULL;
	}
	if (!SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) ||
	    !SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION) ||
	    !SSL_CTX_set_num_tickets(ctx, 0)) {
		peer_err_printf(err, err_size, "peering: cannot restrict the TLS context to TLS 1.3: %s",
			     peer_tls_ssl_errstr(ebuf, sizeof(ebuf)));
		goto fail_ctx;
	}
	SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
	SSL_CTX_set_verify_depth(ctx, PEER_TLS_VERIFY_DEPTH);
	SSL_CTX_set_default_passwd_cb(ctx, peer_tls_no_password);

	store = SSL_CTX_get_cert_store(ctx);
	n = peer_tls_load_store(store, &blob[PEER_TLS_FILE_CA], false);
	if (n <= 0) {
		peer_err_printf(err, err_size, "peering: ca %s: %s", f->ca,
			     n == 0 ? "no PEM certificate in the file"
				    : peer_tls_ssl_errstr(ebuf, sizeof(ebuf)));
		goto fail_ctx;
	}
	if (f->crl[0] != '\0') {
		n = peer_tls_load_store(store, &blob[PEER_TLS_FILE_CRL], true);
		if (n <= 0) {
			peer_err_printf(err, err_size, "peering: crl %s: %s", f->crl,
				     n == 0 ? "no PEM CRL in the file"
					    : peer_tls_ssl_errstr(ebuf, sizeof(ebuf)));
			goto fail_ctx;
		}
		/* The peer's own certificate is checked; the CA is trusted as configured. */
		X509_STORE_set_flags(store, X509_V_FLAG_CRL_CHECK);
	}
	n = peer_tls_load_cert(ctx, &blob[PEER_TLS_FILE_CERT]);
	if (n <= 0) {
		peer_err_printf(err, err_size, "peering: cert %s: %s", f->cert,
			     n == 0 ? "no PEM certificate in the file"
				    : peer_tls_ssl_errstr(ebuf, sizeof(ebuf)));
		goto fail_ctx;
	}
	n = peer_tls_load_key(ctx, &blob[PEER_TLS_FILE_KEY]);
	if (n == -1) {
		peer_err_printf(err, err_size, "peering: key %s: no unencrypted PEM private key: %s",
			     f->key, peer_tls_ssl_errstr(ebuf, sizeof(ebuf)));
		goto fail_ctx;
	}
	if (n != 0) {
		peer_err_printf(err, err_size, "peering: key %s does not match cert %s", f->key,
			     f->cert);
		goto fail_ctx;
	}
	return ctx;

fail_ctx:
	SSL_CTX_free(ctx);
	return NULL;
}

static const char *
peer_tls_file_path(const struct peer_tls_files *f, enum peer_tls_file i)
{
	switch (i) {
	case PEER_TLS_FILE_CA:
		return f->ca;
	case PEER_TLS_FILE_CERT:
		return f->cert;
	case PEER_TLS_FILE_KEY:
		return f->key;
	case PEER_TLS_FILE_CRL:
	default:
		return f->crl;
	}
}

/*
 * Read every configured file and hash it. On success BLOB and DIGEST hold
 * each file (an absent CRL is an empty blob); the caller frees the blobs.
 */
static int
peer_tls_read_all(const struct peer_tls_files *f, struct peer_tls_blob *blob,
		  uint8_t digest[][32], char *err, size_t err_size)
{
	unsigned int i;
	int rc;

	memset(blob, 0, sizeof(*blob) * PEER_TLS_FILE_MAX);
	for (i = 0; i < PEER_TLS_FILE_MAX; i++) {
		const char *path = peer_tls_file_path(f, (enum peer_tls_file)i);
		unsigned int dlen = 32;

		memset(digest[i], 0, 32);
		if (path[0] == '\0') {
			if (i == PEER_TLS_FILE_CRL)
				continue;
			peer_err_printf(err, err_size, "peering: %s: no file configured",
				     peer_tls_file_names[i]);
			rc = -EINVAL;
			goto fail_blobs;
		}
		rc = peer_tls_read_file(peer_tls_file_names[i], path, &blob[i], err, err_size);
		if (rc != 0)
			goto fail_blobs;
		if (!EVP_Digest(blob[i].data, blob[i].size, digest[i], &dlen, EVP_sha256(), NULL)) {
			peer_err_printf(err, err_size, "peering: cannot hash %s", path);
			ERR_clear_error();
			rc = -EIO;
			goto fail_blobs;
		}
	}
	return 0;

fail_blobs:
	for (i = 0; i < PEER_TLS_FILE_MAX; i++)
		free(blob[i].data);
	return rc;
}

static void
peer_tls_free_blobs(struct peer_tls_blob *blob)
{
	unsigned int i;

	for (i = 0; i < PEER_TLS_FILE_MAX; i++) {
		/* The key's bytes should not linger in freed memory. */
		if (blob[i].data != NULL)
			OPENSSL_cleanse(blob[i].data, blob[i].size);
		free(blob[i].data);
	}
}

int
peer_tls_ctx_init(struct peer_tls_ctx *t, const struct peer_tls_files *files, char *err,
		  size_t err_size)
{
	struct peer_tls_blob blob[PEER_TLS_FILE_MAX];
	int rc;

	memset(t, 0, sizeof(*t));
	t->files = *files;
	rc = peer_tls_read_all(&t->files, blob, t->digest, err, err_size);
	if (rc != 0) {
		memset(t, 0, sizeof(*t));
		return rc;
	}
	t->ssl_ctx = peer_tls_build(&t->files, blob, err, err_size);
	peer_tls_free_blobs(blob);
	if (t->ssl_ctx == NULL) {
		memset(t, 0, sizeof(*t));
		return -EINVAL;
	}
	t->generation = 1;
	return 0;
}

int
peer_tls_ctx_reload(struct peer_tls_ctx *t, char *err, size_t err_size)
{
	struct peer_tls_blob blob[PEER_TLS_FILE_MAX];
	uint8_t digest[PEER_TLS_FILE_MAX][32];
	SSL_CTX *ctx;
	int rc;

	rc = peer_tls_read_all(&t->files, blob, digest, err, err_size);
	if (rc != 0)
		return rc;
	if (memcmp(digest, t->digest, sizeof(digest)) == 0) {
		peer_tls_free_blobs(blob);
		return 0;
	}
	ctx = peer_tls_build(&t->files, blob, err, err_size);
	peer_tls_free_blobs(blob);
	if (ctx == NULL)
		return -EINVAL;
	/* Open connections hold their own reference to the old context. */
	SSL_CTX_free(t->ssl_ctx);
	t->ssl_ctx = ctx;
	memcpy(t->digest, digest, sizeof(digest));
	t->generation++;
	return 1;
}

void
peer_tls_ctx_free(struct peer_tls_ctx *t)
{
	SSL_CTX_free(t->ssl_ctx);
	memset(t, 0, sizeof(*t));
}

/* --- connections --- */

static void __attribute__((format(printf, 3, 4)))
peer_tls_fail(struct peer_tls_conn *c, enum peer_reason r, const char *fmt, ...)
{
	va_list ap;

	c->reason = r;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
}

static enum peer_reason
peer_tls_verify_reason(long vr)
{
	switch (vr) {
	case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
	case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
	case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
	case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
	case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
	case X509_V_ERR_CERT_SIGNATURE_FAILURE:
		return PEER_REASON_UNKNOWN_CA;
	case X509_V_ERR_CERT_HAS_EXPIRED:
		return PEER_REASON_CERT_EXPIRED;
	case X509_V_ERR_CERT_NOT_YET_VALID:
		return PEER_REASON_CERT_NOT_YET_VALID;
	case X509_V_ERR_CERT_REVOKED:
		return PEER_REASON_CERT_REVOKED;
	case X509_V_ERR_HOSTNAME_MISMATCH:
		return PEER_REASON_WRONG_SITE;
	default:
		return PEER_REASON_CERT_INVALID;
	}
}

/* Name the failure of an SSL call that returned SSL_ERROR_SSL or _SYSCALL. */
static void
peer_tls_classify(struct peer_tls_conn *c, int ssl_err, int saved_errno)
{
	long vr = SSL_get_verify_result(c->ssl);
	unsigned long e = ERR_peek_error();
	int reason = ERR_GET_REASON(e);
	char ebuf[120];

	c->fatal = true;
	if (vr != X509_V_OK) {
		peer_tls_fail(c, peer_tls_verify_reason(vr), "certificate of '%s': %s", c->site,
			      X509_verify_cert_error_string(vr));
		ERR_clear_error();
		return;
	}
	if (ssl_err == SSL_ERROR_SYSCALL && e == 0) {
		if (saved_errno == 0)
			peer_tls_fail(c, PEER_REASON_PEER_CLOSED, "connection closed");
		else
			peer_tls_fail(c, PEER_REASON_PEER_CLOSED, "%s", strerror(saved_errno));
		return;
	}
	if (ERR_GET_LIB(e) == ERR_LIB_SSL && reason > SSL_AD_REASON_OFFSET &&
	    reason < SSL_AD_REASON_OFFSET + 256) {
		int alert = reason - SSL_AD_REASON_OFFSET;

		peer_tls_fail(c,
			      alert == SSL_AD_PROTOCOL_VERSION ? PEER_REASON_TLS_VERSION
							       : PEER_REASON_REFUSED_BY_PEER,
			      "TLS alert from the peer: %s", SSL_alert_desc_string_long(alert));
		ERR_clear_error();
		return;
	}
	if (ERR_GET_LIB(e) == ERR_LIB_SSL) {
		enum peer_reason r;

		switch (reason) {
		case SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE:
			r = PEER_REASON_NO_CERT;
			break;
		case SSL_R_WRONG_VERSION_NUMBER:
		case SSL_R_HTTP_REQUEST:
		case SSL_R_HTTPS_PROXY_REQUEST:
		case SSL_R_PACKET_LENGTH_TOO_LONG:
		case SSL_R_RECORD_LENGTH_MISMATCH:
			r = PEER_REASON_NOT_TLS;
			break;
		case SSL_R_UNSUPPORTED_PROTOCOL:
		case SSL_R_NO_PROTOCOLS_AVAILABLE:
		case SSL_R_VERSION_TOO_LOW:
			r = PEER_REASON_TLS_VERSION;
			break;
		case SSL_R_UNEXPECTED_EOF_WHILE_READING:
			r = PEER_REASON_PEER_CLOSED;
			break;
		default:
			r = PEER_REASON_TLS_ERROR;
			break;
		}
		peer_tls_fail(c, r, "%s", peer_tls_ssl_errstr(ebuf, sizeof(ebuf)));
		return;
	}
	peer_tls_fail(c, PEER_REASON_TLS_ERROR, "%s", peer_tls_ssl_errstr(ebuf, sizeof(ebuf)));
}

/* The outcome of an SSL call that returned RC <= 0. */
static enum peer_tls_io
peer_tls_result(struct peer_tls_conn *c, int rc)
{
	int saved_errno = errno;
	int e = SSL_get_error(c->ssl, rc);

	switch (e) {
	case SSL_ERROR_WANT_READ:
		c->events = POLLIN;
		return PEER_TLS_IO_AGAIN;
	case SSL_ERROR_WANT_WRITE:
		c->events = POLLOUT;
		return PEER_TLS_IO_AGAIN;
	case SSL_ERROR_ZERO_RETURN:
		peer_tls_fail(c, PEER_REASON_PEER_CLOSED, "close_notify received");
		return PEER_TLS_IO_EOF;
	default:
		peer_tls_classify(c, e, saved_errno);
		return c->reason == PEER_REASON_PEER_CLOSED ? PEER_TLS_IO_EOF : PEER_TLS_IO_FAIL;
	}
}

static int
peer_tls_set_site(struct peer_tls_conn *c, const char *site)
{
	size_t n = strlen(site);

	if (n == 0 || n > PEER_TLS_SITE_MAX) {
		peer_tls_fail(c, PEER_REASON_NO_RESOURCES, "site name '%s' empty or too long", site);
		return -EINVAL;
	}
	memcpy(c->site, site, n + 1);
	return 0;
}

/* The SSL object on c->fd, checking the peer against c->site. */
static int
peer_tls_ssl_new(struct peer_tls_conn *c, const struct peer_tls_ctx *t)
{
	BIO_METHOD *m = peer_bio_method();
	BIO *bio;
	char ebuf[120];

	c->ssl = m != NULL ? SSL_new(t->ssl_ctx) : NULL;
	if (c->ssl == NULL) {
		peer_tls_fail(c, PEER_REASON_NO_RESOURCES, "SSL_new: %s",
			      peer_tls_ssl_errstr(ebuf, sizeof(ebuf)));
		return -ENOMEM;
	}
	bio = BIO_new(m);
	if (bio == NULL) {
		peer_tls_fail(c, PEER_REASON_NO_RESOURCES, "BIO_new: %s",
			      peer_tls_ssl_errstr(ebuf, sizeof(ebuf)));
		return -ENOMEM;
	}
	BIO_set_data(bio, (void *)(intptr_t)c->fd);
	SSL_set_bio(c->ssl, bio, bio);
	SSL_set_hostflags(c->ssl, PEER_TLS_HOSTFLAGS);
	if (!SSL_set1_host(c->ssl, c->site) ||
	    (c->outbound && !SSL_set_tlsext_host_name(c->ssl, c->site))) {
		peer_tls_fail(c, PEER_REASON_NO_RESOURCES, "cannot set the expected site '%s': %s",
			      c->site, peer_tls_ssl_errstr(ebuf, sizeof(ebuf)));
		return -EINVAL;
	}
	if (c->outbound)
		SSL_set_connect_state(c->ssl);
	else
		SSL_set_accept_state(c->ssl);
	return 0;
}

static void
peer_tls_conn_reset(struct peer_tls_conn *c, bool outbound)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->outbound = outbound;
	c->reason = PEER_REASON_NONE;
}

int
peer_tls_connect(struct peer_tls_conn *c, const struct peer_tls_ctx *t,
		 const struct sockaddr *remote, socklen_t remote_len,
		 const struct sockaddr *local, socklen_t local_len, const char *site)
{
	int one = 1, rc;

	peer_tls_conn_reset(c, true);
	if (peer_tls_set_site(c, site) != 0)
		return -EINVAL;
	c->fd = socket(remote->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		rc = -errno;
		peer_tls_fail(c, PEER_REASON_NO_RESOURCES, "socket: %s", strerror(errno));
		return rc;
	}
	/* Peering messages are small and latency matters more than segments. */
	(void)setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (local_len > 0 && bind(c->fd, local, local_len) != 0) {
		rc = -errno;
		peer_tls_fail(c, PEER_REASON_CONNECT_FAILED, "bind: %s", strerror(errno));
		return rc;
	}
	rc = peer_tls_ssl_new(c, t);
	if (rc != 0)
		return rc;
	if (connect(c->fd, remote, remote_len) == 0) {
		c->state = PEER_TLS_HANDSHAKE;
		return 0;
	}
	if (errno != EINPROGRESS) {
		rc = -errno;
		peer_tls_fail(c, PEER_REASON_CONNECT_FAILED, "connect: %s", strerror(errno));
		return rc;
	}
	c->state = PEER_TLS_CONNECTING;
	c->events = POLLOUT;
	return 0;
}

int
peer_tls_accept(struct peer_tls_conn *c, const struct peer_tls_ctx *t, int fd, const char *site)
{
	int one = 1, rc;

	peer_tls_conn_reset(c, false);
	c->fd = fd;
	if (peer_tls_set_site(c, site) != 0)
		return -EINVAL;
	(void)setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	rc = peer_tls_ssl_new(c, t);
	if (rc != 0)
		return rc;
	c->state = PEER_TLS_PEEK;
	c->events = POLLIN;
	return 0;
}

/* Has the non-blocking connect finished? A zero-timeout poll never blocks. */
static enum peer_tls_io
peer_tls_connect_step(struct peer_tls_conn *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int soerr = 0;

	if (poll(&p, 1, 0) == 0) {
		c->events = POLLOUT;
		return PEER_TLS_IO_AGAIN;
	}
	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0)
		soerr = errno;
	if (soerr != 0) {
		peer_tls_fail(c, PEER_REASON_CONNECT_FAILED, "connect: %s", strerror(soerr));
		return PEER_TLS_IO_FAIL;
	}
	c->state = PEER_TLS_HANDSHAKE;
	return PEER_TLS_IO_OK;
}

/* A TLS client speaks first with a handshake record; anything else is not TLS. */
static enum peer_tls_io
peer_tls_peek_step(struct peer_tls_conn *c)
{
	uint8_t b;
	ssize_t n = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
		c->events = POLLIN;
		return PEER_TLS_IO_AGAIN;
	}
	if (n <= 0) {
		peer_tls_fail(c, PEER_REASON_PEER_CLOSED, "%s",
			      n == 0 ? "closed before sending anything" : strerror(errno));
		return PEER_TLS_IO_EOF;
	}
	if (b != PEER_TLS_RECORD_HANDSHAKE) {
		peer_tls_fail(c, PEER_REASON_NOT_TLS,
			      "first byte 0x%02x is not a TLS handshake record", b);
		return PEER_TLS_IO_FAIL;
	}
	c->state = PEER_TLS_HANDSHAKE;
	return PEER_TLS_IO_OK;
}

enum peer_tls_io
peer_tls_handshake(struct peer_tls_conn *c)
{
	enum peer_tls_io io;
	int rc;

	if (c->state == PEER_TLS_CONNECTING) {
		io = peer_tls_connect_step(c);
		if (io != PEER_TLS_IO_OK)
			return io;
	}
	if (c->state == PEER_TLS_PEEK) {
		io = peer_tls_peek_step(c);
		if (io != PEER_TLS_IO_OK)
			return io;
	}
	if (c->state == PEER_TLS_OPEN)
		return PEER_TLS_IO_OK;
	if (c->state != PEER_TLS_HANDSHAKE) {
		if (c->reason == PEER_REASON_NONE)
			peer_tls_fail(c, PEER_REASON_SHUTDOWN, "connection already closed");
		return PEER_TLS_IO_FAIL;
	}
	ERR_clear_error();
	errno = 0;
	rc = SSL_do_handshake(c->ssl);
	if (rc == 1) {
		c->state = PEER_TLS_OPEN;
		c->events = POLLIN;
		return PEER_TLS_IO_OK;
	}
	return peer_tls_result(c, rc);
}

enum peer_tls_io
peer_tls_read(struct peer_tls_conn *c, void *buf, size_t cap, size_t *n)
{
	int rc;

	*n = 0;
	if (c->state != PEER_TLS_OPEN) {
		enum peer_tls_io io = peer_tls_handshake(c);

		if (io != PEER_TLS_IO_OK)
			return io;
	}
	ERR_clear_error();
	errno = 0;
	rc = SSL_read(c->ssl, buf, cap > INT_MAX ? INT_MAX : (int)cap);
	if (rc > 0) {
		*n = (size_t)rc;
		return PEER_TLS_IO_OK;
	}
	return peer_tls_result(c, rc);
}

enum peer_tls_io
peer_tls_write(struct peer_tls_conn *c, const void *buf, size_t len, size_t *n)
{
	int rc;

	*n = 0;
	if (c->state != PEER_TLS_OPEN) {
		c->events = POLLOUT;
		return PEER_TLS_IO_AGAIN;
	}
	if (len == 0)
		return PEER_TLS_IO_OK;
	ERR_clear_error();
	errno = 0;
	rc = SSL_write(c->ssl, buf, len > INT_MAX ? INT_MAX : (int)len);
	if (rc > 0) {
		*n = (size_t)rc;
		return PEER_TLS_IO_OK;
	}
	return peer_tls_result(c, rc);
}

bool
peer_tls_pending(const struct peer_tls_conn *c)
{
	return c->ssl != NULL && c->state == PEER_TLS_OPEN && SSL_pending(c->ssl) > 0;
}

enum peer_reason
peer_tls_reverify(struct peer_tls_conn *c, const struct peer_tls_ctx *t)
{
	X509 *leaf = c->ssl != NULL ? SSL_get0_peer_certificate(c->ssl) : NULL;
	STACK_OF(X509) *chain = c->ssl != NULL ? SSL_get_peer_cert_chain(c->ssl) : NULL;
	X509_STORE_CTX *x;
	X509_VERIFY_PARAM *vp;
	enum peer_reason r = PEER_REASON_NONE;

	if (leaf == NULL) {
		peer_tls_fail(c, PEER_REASON_NO_CERT, "no peer certificate to verify");
		return c->reason;
	}
	x = X509_STORE_CTX_new();
	if (x == NULL || !X509_STORE_CTX_init(x, SSL_CTX_get_cert_store(t->ssl_ctx), leaf, chain)) {
		X509_STORE_CTX_free(x);
		ERR_clear_error();
		/* Keep a verified session rather than drop it for want of memory. */
		return PEER_REASON_NONE;
	}
	/* The purpose the handshake checked: a server's certificate if we connected. */
	X509_STORE_CTX_set_default(x, c->outbound ? "ssl_server" : "ssl_client");
	vp = X509_STORE_CTX_get0_param(x);
	X509_VERIFY_PARAM_set_hostflags(vp, PEER_TLS_HOSTFLAGS);
	if (!X509_VERIFY_PARAM_set1_host(vp, c->site, 0) || X509_verify_cert(x) != 1) {
		int vr = X509_STORE_CTX_get_error(x);

		r = vr == X509_V_OK ? PEER_REASON_CERT_INVALID : peer_tls_verify_reason(vr);
		peer_tls_fail(c, r, "certificate of '%s' after reload: %s", c->site,
			      X509_verify_cert_error_string(vr));
	}
	X509_STORE_CTX_free(x);
	ERR_clear_error();
	return r;
}

void
peer_tls_close(struct peer_tls_conn *c)
{
	if (c->ssl != NULL) {
		/* One non-blocking attempt at close_notify, never after a fatal error. */
		if (c->state == PEER_TLS_OPEN && !c->fatal) {
			ERR_clear_error();
			(void)SSL_shutdown(c->ssl);
		}
		ERR_clear_error();
		SSL_free(c->ssl);
		c->ssl = NULL;
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->state = PEER_TLS_CLOSED;
}

int
peer_tls_listen(const struct sockaddr *addr, socklen_t len, char *err, size_t err_size)
{
	int fd, one = 1, rc;

	fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		peer_err_printf(err, err_size, "peering: socket: %s", strerror(errno));
		return rc;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, addr, len) != 0 || listen(fd, 16) != 0) {
		rc = -errno;
		peer_err_printf(err, err_size, "peering: cannot listen: %s", strerror(errno));
		close(fd);
		return rc;
	}
	return fd;
}
