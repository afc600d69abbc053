/// JSON text in borrowed memory, and how far past its end may be read: the C decoders parse it
/// where it is when `WG_JSON_READ_AHEAD` bytes after it are readable (simdjson reads ahead in
/// wide blocks), and copy it into a padded buffer first otherwise.
struct JSONText {
    /// The text; only read during the call that was given it.
    let bytes: UnsafeRawBufferPointer
    /// Bytes readable from the text's start on, the text included (never less than its length).
    let readable: Int

    /// Text followed by `readable - bytes.count` more readable bytes (whatever they hold).
    init(bytes: UnsafeRawBufferPointer, readable: Int) {
        self.bytes = bytes
        self.readable = max(readable, bytes.count)
    }

    /// Text with nothing known to be readable after it (the decoders copy it).
    init(_ bytes: UnsafeRawBufferPointer) {
        self.init(bytes: bytes, readable: bytes.count)
    }
}
