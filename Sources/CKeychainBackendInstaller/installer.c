/*
    Installs Security's backend when the program (or the shared library holding it) loads.

    Security cannot import its backend (see SecurityBackend.swift), and Swift has no code that runs
    at load time, so this constructor calls KeychainBackend's `KeychainBridge_installBackend`
    (a Swift function exported with @c), which hands Security one Swift value. Nothing else
    crosses C. The constructor has no priority: it runs after the Swift runtime's own image
    registration, which the toolchain's swiftrt.o places first in the link.
*/
#include "KeychainBackendInstaller.h"

void KeychainBridge_installBackend(void);

__attribute__((constructor)) static void installKeychainBackend(void) { KeychainBridge_installBackend(); }
