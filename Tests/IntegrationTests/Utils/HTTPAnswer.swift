import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP answer as the tests read it: status, content type, body.
struct HTTPAnswer {
    var status: Int
    var contentType: String
    var body: Data

    /// The body as UTF-8 text.
    var text: String { String(decoding: body, as: UTF8.self) }

    /// GETs `url`; nil when nothing answers within `timeout` seconds.
    static func get(_ url: URL, timeout: Double = 2) async -> HTTPAnswer? {
        var request = URLRequest(url: url)
        request.timeoutInterval = timeout
        guard let (data, response) = try? await URLSession.shared.data(for: request), let http = response as? HTTPURLResponse else { return nil }
        return HTTPAnswer(status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type") ?? "", body: data)
    }
}
