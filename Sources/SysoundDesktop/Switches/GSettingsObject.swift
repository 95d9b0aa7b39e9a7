import CGio

/// One GSettings object (a schema at a path) for Swift: typed reads, the
/// keys the installed schema has, and a `changed` handler. Make and use it on
/// the loop's thread, inside a `GLibContext`: its signals arrive there.
///
/// The schema is looked up first: `g_settings_new` aborts the process on a
/// schema that is not installed, and an older schema (Debian 12's feedbackd
/// 0.0.3 has only `profile` and `theme`) lacks keys a newer one has, which
/// `g_settings_get_*` would also abort on. Reads of a missing key are nil.
final class GSettingsObject {
    let schemaID: String
    /// The path (`/org/gnome/desktop/sound/`): the schema's own, or the one
    /// given for a relocatable schema.
    let path: String
    private let settings: UnsafeMutablePointer<GSettings>
    private let schema: OpaquePointer
    private var handlerID: gulong = 0
    private var changed: ((String) -> Void)?

    /// Whether `id` is installed (in the schema directories GLib searches:
    /// $XDG_DATA_DIRS/glib-2.0/schemas, $GSETTINGS_SCHEMA_DIR).
    static func isInstalled(_ id: String) -> Bool {
        guard let source = g_settings_schema_source_get_default(),
              let schema = g_settings_schema_source_lookup(source, id, 1) else { return false }
        g_settings_schema_unref(schema)
        return true
    }

    /// The type of GSettings' backend: `DConfSettingsBackend`,
    /// `GKeyfileSettingsBackend`, `GMemorySettingsBackend` (GLib's fallback
    /// when dconf's backend is not installed: nothing is shared or followed).
    static var backendName: String {
        guard let backend = g_settings_backend_get_default() else { return "none" }
        defer { g_object_unref(backend) }
        let name = backend.withMemoryRebound(to: GTypeInstance.self, capacity: 1) { g_type_name_from_instance($0) }
        return name.map { String(cString: $0) } ?? "unknown"
    }

    /// Nil when the schema is not installed. `path`: for a relocatable schema (required there).
    init?(schema id: String, path: String? = nil) {
        guard let source = g_settings_schema_source_get_default(),
              let schema = g_settings_schema_source_lookup(source, id, 1) else { return nil }
        let fixed = g_settings_schema_get_path(schema).map { String(cString: $0) }
        guard let where_ = path ?? fixed else {
            g_settings_schema_unref(schema)
            return nil
        }
        guard let settings = g_settings_new_full(schema, nil, where_) else {
            g_settings_schema_unref(schema)
            return nil
        }
        self.schemaID = id
        self.path = where_
        self.schema = schema
        self.settings = settings
    }

    deinit {
        if handlerID != 0 { g_signal_handler_disconnect(settings, handlerID) }
        g_object_unref(settings)
        g_settings_schema_unref(schema)
    }

    func has(_ key: String) -> Bool { g_settings_schema_has_key(schema, key) != 0 }

    func bool(_ key: String) -> Bool? {
        has(key) ? g_settings_get_boolean(settings, key) != 0 : nil
    }

    func string(_ key: String) -> String? {
        guard has(key), let text = g_settings_get_string(settings, key) else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }

    func double(_ key: String) -> Double? {
        has(key) ? g_settings_get_double(settings, key) : nil
    }

    func strings(_ key: String) -> [String]? {
        guard has(key), let list = g_settings_get_strv(settings, key) else { return nil }
        defer { g_strfreev(list) }
        var result: [String] = []
        var i = 0
        while let item = list[i] {
            result.append(String(cString: item))
            i += 1
        }
        return result
    }

    /// Whether the user (or a tool) set `key`, as opposed to the schema's default.
    func isSet(_ key: String) -> Bool {
        guard has(key), let value = g_settings_get_user_value(settings, key) else { return false }
        g_variant_unref(value)
        return true
    }

    /// Writes a string key (through the backend: dconf's writer on the
    /// session bus); false when the key is missing or refuses the value.
    @discardableResult
    func set(_ key: String, string value: String) -> Bool {
        has(key) && g_settings_set_string(settings, key, value) != 0
    }

    /// `handler(key)` runs on the loop thread after a key changed (once per
    /// key; a reset of several keys calls it for each).
    func onChange(_ handler: @escaping (String) -> Void) {
        changed = handler
        guard handlerID == 0 else { return }
        let callback: @convention(c) (UnsafeMutablePointer<GSettings>?, UnsafePointer<gchar>?, gpointer?) -> Void = { _, key, data in
            guard let data, let key else { return }
            Unmanaged<GSettingsObject>.fromOpaque(data).takeUnretainedValue().changed?(String(cString: key))
        }
        handlerID = g_signal_connect_data(
            settings, "changed", unsafeBitCast(callback, to: GCallback.self), Unmanaged.passUnretained(self).toOpaque(), nil,
            GConnectFlags(rawValue: 0))
    }
}
