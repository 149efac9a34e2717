// sd-bus, systemd's D-Bus library, through Debian's libsystemd-dev: the Secret Service's bus.
#ifndef KEYCHAIN_BRIDGE_CSYSTEMDBUS_SHIM_H
#define KEYCHAIN_BRIDGE_CSYSTEMDBUS_SHIM_H
#include <systemd/sd-bus.h>
#include <stdint.h>

/// The credentials a handler asks the bus for about a message's sender: its process and user.
/// (sd-bus declares them as enum constants of 64-bit values, which Swift imports unevenly.)
static inline uint64_t kb_bus_creds_mask(void) {
    return SD_BUS_CREDS_PID | SD_BUS_CREDS_EUID | SD_BUS_CREDS_AUGMENT;
}

#endif
