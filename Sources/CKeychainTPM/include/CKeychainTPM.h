// The few TPM 2.0 operations the keychain needs, over tpm2-tss's ESAPI (Debian's libtss2-dev):
// a P-256 key made inside the TPM (Apple's Secure Enclave keys), signing and ECDH with it, and a
// sealed secret (a store key bound to the machine). Written in C because ESAPI's structures are
// deep unions of fixed-size byte arrays, which Swift imports as tuples; what crosses into Swift is
// byte buffers and a status. Every object loaded for an operation is flushed after it.
#ifndef CKEYCHAINTPM_H
#define CKEYCHAINTPM_H

#include <stddef.h>
#include <stdint.h>

/// A connection to one TPM: its TCTI and its ESAPI context. The storage primary is made for each
/// command that needs it and flushed after, so no process leaves it loaded in the TPM.
typedef struct keychain_tpm keychain_tpm;

/// The largest marshalled private and public blobs the functions write (TPM2B_PRIVATE and
/// TPM2B_PUBLIC with their size fields).
#define KEYCHAIN_TPM_BLOB_CAPACITY 1024

/// Opens the TPM that `tcti` names in tpm2-tss syntax ("device:/dev/tpmrm0",
/// "swtpm:host=127.0.0.1,port=2321") and checks that it can make the storage primary (an ECC P-256
/// key from the owner hierarchy's fixed template: the same key on the same TPM every time, nothing
/// kept in NV memory), flushing it again.
/// Returns 0 or a TSS2_RC; `message` (at least 256 bytes) says what failed.
uint32_t keychain_tpm_open(const char *tcti, keychain_tpm **out, char *message);

/// Closes the connection.
void keychain_tpm_close(keychain_tpm *tpm);

/// Creates a P-256 key for signing and ECDH under the primary: its private blob (only this TPM
/// can load it), its public blob, and its public point (x, y: 32 bytes each).
uint32_t keychain_tpm_create_p256(
  keychain_tpm *tpm, uint8_t *private_blob, size_t *private_length, uint8_t *public_blob, size_t *public_length,
  uint8_t *x, uint8_t *y);

/// Signs a 32-byte digest with the key (ECDSA, SHA-256 scheme): r and s, 32 bytes each.
uint32_t keychain_tpm_sign_p256(
  keychain_tpm *tpm, const uint8_t *private_blob, size_t private_length, const uint8_t *public_blob,
  size_t public_length, const uint8_t *digest, uint8_t *r, uint8_t *s);

/// The ECDH shared secret (the x coordinate, 32 bytes) of the key and the peer's point.
uint32_t keychain_tpm_ecdh_p256(
  keychain_tpm *tpm, const uint8_t *private_blob, size_t private_length, const uint8_t *public_blob,
  size_t public_length, const uint8_t *peer_x, const uint8_t *peer_y, uint8_t *shared);

/// Seals `secret` (at most 128 bytes) to this TPM: a keyed-hash data object under the primary.
uint32_t keychain_tpm_seal(
  keychain_tpm *tpm, const uint8_t *secret, size_t secret_length, uint8_t *private_blob, size_t *private_length,
  uint8_t *public_blob, size_t *public_length);

/// What `keychain_tpm_seal` sealed; `secret` has room for 128 bytes.
uint32_t keychain_tpm_unseal(
  keychain_tpm *tpm, const uint8_t *private_blob, size_t private_length, const uint8_t *public_blob,
  size_t public_length, uint8_t *secret, size_t *secret_length);

/// r and s (32 bytes each) as an X9.62 DER ECDSA-Sig-Value, through OpenSSL's encoder: at most 72
/// bytes written to `der`; returns the length, or 0 on failure.
size_t keychain_tpm_ecdsa_der(const uint8_t *r, const uint8_t *s, uint8_t *der);

/// tpm2-tss's description of a status.
const char *keychain_tpm_describe(uint32_t status);

#endif
