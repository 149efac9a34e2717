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

/// Emits a signal with no argument or one object path argument (sd_bus_emit_signal is variadic).
static inline int kb_bus_emit_path_signal(
    sd_bus *bus, const char *path, const char *interface, const char *member, const char *argument) {
    sd_bus_message *message = NULL;
    int result = sd_bus_message_new_signal(bus, &message, path, interface, member);
    if (result < 0) return result;
    if (argument) result = sd_bus_message_append_basic(message, 'o', argument);
    if (result >= 0) result = sd_bus_send(bus, message, NULL);
    sd_bus_message_unref(message);
    return result;
}
#endif
