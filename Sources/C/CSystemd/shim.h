// libsystemd (Debian libsystemd-dev): sd-event is the daemon's loop, sd-bus its
// D-Bus face, sd-daemon its readiness and watchdog protocol with the service manager,
// sd-journal the native logging protocol when journald reads standard error.
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <systemd/sd-journal.h>
