/*
    CKeychainBackendInstaller has no API: it holds the load-time constructor that installs
    Security's backend (installer.c). KeychainBackend depends on it so that it is linked wherever
    the backend is.
*/
#ifndef KEYCHAIN_BACKEND_INSTALLER_H
#define KEYCHAIN_BACKEND_INSTALLER_H
#endif
