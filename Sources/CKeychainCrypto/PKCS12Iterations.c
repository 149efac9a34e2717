#include "PKCS12Iterations.h"

#include <openssl/asn1t.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pkcs12.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>

long keychain_pkcs12_mac_iterations(const void *file) {
  const ASN1_INTEGER *iterations = NULL;
  if (!PKCS12_mac_present(file)) return -1;
  PKCS12_get0_mac(NULL, NULL, NULL, &iterations, file);
  return iterations == NULL ? 1 : ASN1_INTEGER_get(iterations);
}

long keychain_pbe_iterations(const void *algorithm) {
  const ASN1_OBJECT *oid = NULL;
  int type = 0;
  const void *parameter = NULL;
  X509_ALGOR_get0(&oid, &type, &parameter, algorithm);
  int nid = OBJ_obj2nid(oid);
  if (nid == NID_pbes2) {
    if (type != V_ASN1_SEQUENCE) return -1;
    PBE2PARAM *pbes2 = ASN1_item_unpack(parameter, ASN1_ITEM_rptr(PBE2PARAM));
    if (pbes2 == NULL) return -1;
    long iterations = 0;
    if (OBJ_obj2nid(pbes2->keyfunc->algorithm) == NID_id_pbkdf2) {
      PBKDF2PARAM *kdf = ASN1_TYPE_unpack_sequence(ASN1_ITEM_rptr(PBKDF2PARAM), pbes2->keyfunc->parameter);
      iterations = kdf == NULL ? -1 : ASN1_INTEGER_get(kdf->iter);
      PBKDF2PARAM_free(kdf);
    }
    PBE2PARAM_free(pbes2);
    return iterations;
  }
  // PKCS#5 v1 and PKCS#12's own PBE algorithms share PBEPARAM (salt, iterations).
  if (EVP_PBE_find(EVP_PBE_TYPE_OUTER, nid, NULL, NULL, NULL) == 0) return 0;
  if (type != V_ASN1_SEQUENCE) return -1;
  PBEPARAM *pbe = ASN1_item_unpack(parameter, ASN1_ITEM_rptr(PBEPARAM));
  if (pbe == NULL) return -1;
  long iterations = ASN1_INTEGER_get(pbe->iter);
  PBEPARAM_free(pbe);
  return iterations;
}

const void *keychain_pkcs7_encryption_algorithm(const void *content) {
  const PKCS7 *p7 = content;
  if (OBJ_obj2nid(p7->type) != NID_pkcs7_encrypted || p7->d.encrypted == NULL ||
      p7->d.encrypted->enc_data == NULL)
    return NULL;
  return p7->d.encrypted->enc_data->algorithm;
}

const void *keychain_safebag_encryption_algorithm(const void *bag) {
  const X509_SIG *shrouded = PKCS12_SAFEBAG_get0_pkcs8(bag);
  if (shrouded == NULL) return NULL;
  const X509_ALGOR *algorithm = NULL;
  X509_SIG_get0(shrouded, &algorithm, NULL);
  return algorithm;
}
