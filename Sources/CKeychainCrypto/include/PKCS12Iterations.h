#ifndef PKCS12ITERATIONS_H
#define PKCS12ITERATIONS_H

/*
    The key-derivation iteration counts a PKCS#12 file asks for, read before anything is derived:
    a file that asks for 2^31-1 iterations would keep an import busy for minutes. In C because the
    parameters are read through OpenSSL's ASN.1 item macros (PBEPARAM, PBE2PARAM, PBKDF2PARAM).
    Pointers are OpenSSL's objects, passed untyped so that this header needs no OpenSSL header.
*/

/// The MAC's iteration count of `file` (a PKCS12 *): 1 when the file gives none, -1 when it has
/// no MAC or the count does not fit a long.
long keychain_pkcs12_mac_iterations(const void *file);

/// The iteration count of the password-based algorithm `algorithm` (an X509_ALGOR *): PKCS#5 v1
/// and PKCS#12 PBE, or PBES2 with PBKDF2. 0 for an algorithm of neither kind (OpenSSL refuses it
/// later), -1 when its parameters do not parse or the count does not fit a long.
long keychain_pbe_iterations(const void *algorithm);

/// The algorithm of an encrypted-data content info (a PKCS7 * of type encrypted), or NULL.
const void *keychain_pkcs7_encryption_algorithm(const void *content);

/// The algorithm of a shrouded key bag (a PKCS12_SAFEBAG *), or NULL.
const void *keychain_safebag_encryption_algorithm(const void *bag);

#endif
