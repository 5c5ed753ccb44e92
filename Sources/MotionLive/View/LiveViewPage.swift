/// The live view served at `GET /`.
enum LiveViewPage {
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:"
    static let html = "<!doctype html><title>motion-host</title>"
}
