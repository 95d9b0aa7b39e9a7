// The backend API (g_settings_backend_get_default) is behind this define:
// the daemon asks which backend GSettings uses (dconf, keyfile, memory).
#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gio.h>
#include <gio/gsettingsbackend.h>
