#ifndef CLIBCRYPTO_SHIM_H
#define CLIBCRYPTO_SHIM_H

/* The system's libcrypto (OpenSSL), which SQLCipher already loads into the process.
   Only the EVP symmetric-cipher interface is used, by the CofferCipher target. */
#include <openssl/evp.h>
#include <openssl/opensslv.h>

/* AES-256-GCM as a cipher object that can be shared by every thread. OpenSSL 3 resolves
   EVP_aes_256_gcm() through its provider tables on every EVP_*Init call; an explicitly
   fetched cipher skips that lookup (about a third of a 250-byte seal). Coffer fetches it
   once and keeps it for the life of the process. */
static inline EVP_CIPHER *ccoffer_aes256gcm_fetch(void) {
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
    return EVP_CIPHER_fetch(NULL, "AES-256-GCM", NULL);
#else
    return (EVP_CIPHER *)EVP_aes_256_gcm();
#endif
}

/* The GCM control codes are macros of casts Swift cannot always import. */
static inline int ccoffer_gcm_get_tag(EVP_CIPHER_CTX *context, int length, void *tag) {
    return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, length, tag);
}

static inline int ccoffer_gcm_set_tag(EVP_CIPHER_CTX *context, int length, void *tag) {
    return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, length, tag);
}

#endif
