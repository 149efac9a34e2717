#include "CKeychainTPM.h"

#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

struct keychain_tpm {
  TSS2_TCTI_CONTEXT *tcti;
  ESYS_CONTEXT *esys;
  // An ESAPI context serves one command at a time.
  pthread_mutex_t lock;
};

// The primary's unique field: a fixed value of the project's, so the primary (and so every key
// and secret under it) is the keychain's own, distinct from the usual storage root key, and the
// same on every start of the same TPM (it is derived from the owner seed and this template).
static const char primary_unique[32] = "KeychainBridge storage primary";

static TPM2B_PUBLIC primary_template(void) {
  TPM2B_PUBLIC template = {0};
  template.publicArea.type = TPM2_ALG_ECC;
  template.publicArea.nameAlg = TPM2_ALG_SHA256;
  template.publicArea.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
    TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT |
    TPMA_OBJECT_NODA;
  TPMS_ECC_PARMS *ecc = &template.publicArea.parameters.eccDetail;
  ecc->symmetric.algorithm = TPM2_ALG_AES;
  ecc->symmetric.keyBits.aes = 128;
  ecc->symmetric.mode.aes = TPM2_ALG_CFB;
  ecc->scheme.scheme = TPM2_ALG_NULL;
  ecc->curveID = TPM2_ECC_NIST_P256;
  ecc->kdf.scheme = TPM2_ALG_NULL;
  template.publicArea.unique.ecc.x.size = 32;
  memcpy(template.publicArea.unique.ecc.x.buffer, primary_unique, 32);
  template.publicArea.unique.ecc.y.size = 32;
  return template;
}

static void describe(char *message, const char *step, TSS2_RC status) {
  snprintf(message, 256, "%s: %s", step, Tss2_RC_Decode(status));
}

/// Makes the storage primary (the same key each time, from the fixed template) into `primary`.
///
/// It is flushed after each use rather than kept loaded (issue 49, case 10): with no resource
/// manager between the processes and the TPM (a software TPM, or /dev/tpm0), an object a process
/// leaves loaded stays when the process ends, and after a few such processes the TPM has no room
/// for the objects a good store needs.
static TSS2_RC make_primary(keychain_tpm *tpm, ESYS_TR *primary) {
  TPM2B_SENSITIVE_CREATE sensitive = {0};
  TPM2B_PUBLIC template = primary_template();
  TPM2B_DATA outside = {0};
  TPML_PCR_SELECTION pcrs = {0};
  TPM2B_PUBLIC *public_area = NULL;
  TPM2B_CREATION_DATA *creation = NULL;
  TPM2B_DIGEST *creation_hash = NULL;
  TPMT_TK_CREATION *ticket = NULL;
  TSS2_RC status = Esys_CreatePrimary(
    tpm->esys, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &sensitive, &template, &outside,
    &pcrs, primary, &public_area, &creation, &creation_hash, &ticket);
  Esys_Free(public_area);
  Esys_Free(creation);
  Esys_Free(creation_hash);
  Esys_Free(ticket);
  return status;
}

uint32_t keychain_tpm_open(const char *tcti, keychain_tpm **out, char *message) {
  *out = NULL;
  keychain_tpm *tpm = calloc(1, sizeof(keychain_tpm));
  if (tpm == NULL) {
    snprintf(message, 256, "out of memory");
    return TSS2_ESYS_RC_MEMORY;
  }
  TSS2_RC status = Tss2_TctiLdr_Initialize(tcti, &tpm->tcti);
  if (status != TSS2_RC_SUCCESS) {
    describe(message, "cannot reach the TPM", status);
    free(tpm);
    return status;
  }
  status = Esys_Initialize(&tpm->esys, tpm->tcti, NULL);
  if (status != TSS2_RC_SUCCESS) {
    describe(message, "cannot start ESAPI", status);
    Tss2_TctiLdr_Finalize(&tpm->tcti);
    free(tpm);
    return status;
  }
  // A TPM just powered on (a simulator without startup-clear) needs a startup; one already
  // started answers TPM2_RC_INITIALIZE, which is fine.
  status = Esys_Startup(tpm->esys, TPM2_SU_CLEAR);
  if (status != TSS2_RC_SUCCESS && (status & 0xfff) != TPM2_RC_INITIALIZE) {
    describe(message, "the TPM did not start", status);
    Esys_Finalize(&tpm->esys);
    Tss2_TctiLdr_Finalize(&tpm->tcti);
    free(tpm);
    return status;
  }
  // The primary is made for each command and flushed after it (`with_primary`): one made here
  // first proves the TPM can, so a TPM that cannot fails the open, not the first use.
  ESYS_TR primary = ESYS_TR_NONE;
  status = make_primary(tpm, &primary);
  if (status != TSS2_RC_SUCCESS) {
    describe(message, "cannot make the storage primary", status);
    Esys_Finalize(&tpm->esys);
    Tss2_TctiLdr_Finalize(&tpm->tcti);
    free(tpm);
    return status;
  }
  Esys_FlushContext(tpm->esys, primary);
  pthread_mutex_init(&tpm->lock, NULL);
  *out = tpm;
  return TSS2_RC_SUCCESS;
}

void keychain_tpm_close(keychain_tpm *tpm) {
  if (tpm == NULL) return;
  Esys_Finalize(&tpm->esys);
  Tss2_TctiLdr_Finalize(&tpm->tcti);
  pthread_mutex_destroy(&tpm->lock);
  free(tpm);
}

const char *keychain_tpm_describe(uint32_t status) { return Tss2_RC_Decode(status); }

/// Creates an object from `template` under the primary and writes its marshalled blobs.
static TSS2_RC create(
  keychain_tpm *tpm, const TPM2B_SENSITIVE_CREATE *sensitive, const TPM2B_PUBLIC *template, uint8_t *private_blob,
  size_t *private_length, uint8_t *public_blob, size_t *public_length, TPM2B_PUBLIC **created_public) {
  TPM2B_DATA outside = {0};
  TPML_PCR_SELECTION pcrs = {0};
  TPM2B_PRIVATE *created_private = NULL;
  TPM2B_CREATION_DATA *creation = NULL;
  TPM2B_DIGEST *creation_hash = NULL;
  TPMT_TK_CREATION *ticket = NULL;
  ESYS_TR primary = ESYS_TR_NONE;
  TSS2_RC status = make_primary(tpm, &primary);
  if (status != TSS2_RC_SUCCESS) return status;
  status = Esys_Create(
    tpm->esys, primary, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, sensitive, template, &outside, &pcrs,
    &created_private, created_public, &creation, &creation_hash, &ticket);
  Esys_FlushContext(tpm->esys, primary);
  Esys_Free(creation);
  Esys_Free(creation_hash);
  Esys_Free(ticket);
  if (status != TSS2_RC_SUCCESS) return status;
  size_t private_offset = 0;
  size_t public_offset = 0;
  status = Tss2_MU_TPM2B_PRIVATE_Marshal(created_private, private_blob, KEYCHAIN_TPM_BLOB_CAPACITY, &private_offset);
  if (status == TSS2_RC_SUCCESS) {
    status = Tss2_MU_TPM2B_PUBLIC_Marshal(*created_public, public_blob, KEYCHAIN_TPM_BLOB_CAPACITY, &public_offset);
  }
  Esys_Free(created_private);
  *private_length = private_offset;
  *public_length = public_offset;
  return status;
}

/// Loads an object from its blobs under the primary; the whole of each blob must be read.
static TSS2_RC load(
  keychain_tpm *tpm, const uint8_t *private_blob, size_t private_length, const uint8_t *public_blob,
  size_t public_length, ESYS_TR *object) {
  TPM2B_PRIVATE private_area = {0};
  TPM2B_PUBLIC public_area = {0};
  size_t offset = 0;
  TSS2_RC status = Tss2_MU_TPM2B_PRIVATE_Unmarshal(private_blob, private_length, &offset, &private_area);
  if (status != TSS2_RC_SUCCESS) return status;
  if (offset != private_length) return TSS2_ESYS_RC_BAD_VALUE;
  offset = 0;
  status = Tss2_MU_TPM2B_PUBLIC_Unmarshal(public_blob, public_length, &offset, &public_area);
  if (status != TSS2_RC_SUCCESS) return status;
  if (offset != public_length) return TSS2_ESYS_RC_BAD_VALUE;
  // The loaded object outlives its parent's flush: only loading needs the primary.
  ESYS_TR primary = ESYS_TR_NONE;
  status = make_primary(tpm, &primary);
  if (status != TSS2_RC_SUCCESS) return status;
  status = Esys_Load(tpm->esys, primary, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &private_area, &public_area, object);
  Esys_FlushContext(tpm->esys, primary);
  return status;
}

uint32_t keychain_tpm_create_p256(
  keychain_tpm *tpm, uint8_t *private_blob, size_t *private_length, uint8_t *public_blob, size_t *public_length,
  uint8_t *x, uint8_t *y) {
  TPM2B_SENSITIVE_CREATE sensitive = {0};
  TPM2B_PUBLIC template = {0};
  template.publicArea.type = TPM2_ALG_ECC;
  template.publicArea.nameAlg = TPM2_ALG_SHA256;
  // Sign and decrypt (ECDH) with no scheme: the scheme is chosen per operation. NODA: the key has
  // no authorization value to guess, so the TPM's dictionary-attack lockout must not count it.
  template.publicArea.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
    TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_DECRYPT |
    TPMA_OBJECT_NODA;
  TPMS_ECC_PARMS *ecc = &template.publicArea.parameters.eccDetail;
  ecc->symmetric.algorithm = TPM2_ALG_NULL;
  ecc->scheme.scheme = TPM2_ALG_NULL;
  ecc->curveID = TPM2_ECC_NIST_P256;
  ecc->kdf.scheme = TPM2_ALG_NULL;
  TPM2B_PUBLIC *created = NULL;
  pthread_mutex_lock(&tpm->lock);
  TSS2_RC status = create(tpm, &sensitive, &template, private_blob, private_length, public_blob, public_length, &created);
  pthread_mutex_unlock(&tpm->lock);
  if (status == TSS2_RC_SUCCESS) {
    const TPMS_ECC_POINT *point = &created->publicArea.unique.ecc;
    if (point->x.size > 32 || point->y.size > 32) {
      status = TSS2_ESYS_RC_BAD_VALUE;
    } else {
      // Coordinates shorter than the field are left-padded, as in X9.63's encoding.
      memset(x, 0, 32);
      memset(y, 0, 32);
      memcpy(x + 32 - point->x.size, point->x.buffer, point->x.size);
      memcpy(y + 32 - point->y.size, point->y.buffer, point->y.size);
    }
  }
  Esys_Free(created);
  return status;
}

static void left_padded(uint8_t *out, const TPM2B_ECC_PARAMETER *value) {
  memset(out, 0, 32);
  size_t size = value->size > 32 ? 32 : value->size;
  memcpy(out + 32 - size, value->buffer + (value->size - size), size);
}

uint32_t keychain_tpm_sign_p256(
  keychain_tpm *tpm, const uint8_t *private_blob, size_t private_length, const uint8_t *public_blob,
  size_t public_length, const uint8_t *digest, uint8_t *r, uint8_t *s) {
  TPM2B_DIGEST to_sign = {.size = 32};
  memcpy(to_sign.buffer, digest, 32);
  TPMT_SIG_SCHEME scheme = {.scheme = TPM2_ALG_ECDSA};
  scheme.details.ecdsa.hashAlg = TPM2_ALG_SHA256;
  // No hash check ticket: the key is not restricted, so the TPM signs any digest.
  TPMT_TK_HASHCHECK validation = {.tag = TPM2_ST_HASHCHECK, .hierarchy = TPM2_RH_NULL};
  TPMT_SIGNATURE *signature = NULL;
  ESYS_TR key = ESYS_TR_NONE;
  pthread_mutex_lock(&tpm->lock);
  TSS2_RC status = load(tpm, private_blob, private_length, public_blob, public_length, &key);
  if (status == TSS2_RC_SUCCESS) {
    status = Esys_Sign(
      tpm->esys, key, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &to_sign, &scheme, &validation, &signature);
    Esys_FlushContext(tpm->esys, key);
  }
  pthread_mutex_unlock(&tpm->lock);
  if (status == TSS2_RC_SUCCESS) {
    left_padded(r, &signature->signature.ecdsa.signatureR);
    left_padded(s, &signature->signature.ecdsa.signatureS);
  }
  Esys_Free(signature);
  return status;
}

uint32_t keychain_tpm_ecdh_p256(
  keychain_tpm *tpm, const uint8_t *private_blob, size_t private_length, const uint8_t *public_blob,
  size_t public_length, const uint8_t *peer_x, const uint8_t *peer_y, uint8_t *shared) {
  TPM2B_ECC_POINT peer = {0};
  peer.point.x.size = 32;
  memcpy(peer.point.x.buffer, peer_x, 32);
  peer.point.y.size = 32;
  memcpy(peer.point.y.buffer, peer_y, 32);
  TPM2B_ECC_POINT *product = NULL;
  ESYS_TR key = ESYS_TR_NONE;
  pthread_mutex_lock(&tpm->lock);
  TSS2_RC status = load(tpm, private_blob, private_length, public_blob, public_length, &key);
  if (status == TSS2_RC_SUCCESS) {
    status = Esys_ECDH_ZGen(tpm->esys, key, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &peer, &product);
    Esys_FlushContext(tpm->esys, key);
  }
  pthread_mutex_unlock(&tpm->lock);
  if (status == TSS2_RC_SUCCESS) left_padded(shared, &product->point.x);
  Esys_Free(product);
  return status;
}

uint32_t keychain_tpm_seal(
  keychain_tpm *tpm, const uint8_t *secret, size_t secret_length, uint8_t *private_blob, size_t *private_length,
  uint8_t *public_blob, size_t *public_length) {
  if (secret_length > 128) return TSS2_ESYS_RC_BAD_SIZE;
  TPM2B_SENSITIVE_CREATE sensitive = {0};
  sensitive.sensitive.data.size = (UINT16)secret_length;
  memcpy(sensitive.sensitive.data.buffer, secret, secret_length);
  TPM2B_PUBLIC template = {0};
  template.publicArea.type = TPM2_ALG_KEYEDHASH;
  template.publicArea.nameAlg = TPM2_ALG_SHA256;
  template.publicArea.objectAttributes =
    TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA;
  template.publicArea.parameters.keyedHashDetail.scheme.scheme = TPM2_ALG_NULL;
  TPM2B_PUBLIC *created = NULL;
  pthread_mutex_lock(&tpm->lock);
  TSS2_RC status = create(tpm, &sensitive, &template, private_blob, private_length, public_blob, public_length, &created);
  pthread_mutex_unlock(&tpm->lock);
  Esys_Free(created);
  memset(&sensitive, 0, sizeof(sensitive));
  return status;
}

uint32_t keychain_tpm_unseal(
  keychain_tpm *tpm, const uint8_t *private_blob, size_t private_length, const uint8_t *public_blob,
  size_t public_length, uint8_t *secret, size_t *secret_length) {
  TPM2B_SENSITIVE_DATA *data = NULL;
  ESYS_TR object = ESYS_TR_NONE;
  pthread_mutex_lock(&tpm->lock);
  TSS2_RC status = load(tpm, private_blob, private_length, public_blob, public_length, &object);
  if (status == TSS2_RC_SUCCESS) {
    status = Esys_Unseal(tpm->esys, object, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &data);
    Esys_FlushContext(tpm->esys, object);
  }
  pthread_mutex_unlock(&tpm->lock);
  if (status == TSS2_RC_SUCCESS) {
    if (data->size > 128) {
      status = TSS2_ESYS_RC_BAD_SIZE;
    } else {
      memcpy(secret, data->buffer, data->size);
      *secret_length = data->size;
    }
    memset(data->buffer, 0, sizeof(data->buffer));
  }
  Esys_Free(data);
  return status;
}

size_t keychain_tpm_ecdsa_der(const uint8_t *r, const uint8_t *s, uint8_t *der) {
  ECDSA_SIG *signature = ECDSA_SIG_new();
  BIGNUM *big_r = BN_bin2bn(r, 32, NULL);
  BIGNUM *big_s = BN_bin2bn(s, 32, NULL);
  if (signature == NULL || big_r == NULL || big_s == NULL || ECDSA_SIG_set0(signature, big_r, big_s) != 1) {
    ECDSA_SIG_free(signature);
    BN_free(big_r);
    BN_free(big_s);
    return 0;
  }
  int length = i2d_ECDSA_SIG(signature, NULL);
  size_t written = 0;
  if (length > 0 && length <= 72) {
    unsigned char *cursor = der;
    written = (size_t)i2d_ECDSA_SIG(signature, &cursor);
  }
  ECDSA_SIG_free(signature);
  return written;
}
