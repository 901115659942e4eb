#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CMicroHTTPD

/// The functions libmicrohttpd calls, on its daemon's event loop. Each turns its context pointer
/// back into the `ServedDaemon` (retained while the daemon runs) and calls a named method; none
/// captures anything or is actor-isolated.
enum MHDCallbacks {
    static func served(_ pointer: UnsafeMutableRawPointer?) -> ServedDaemon? {
        guard let pointer else { return nil }
        return Unmanaged<ServedDaemon>.fromOpaque(pointer).takeUnretainedValue()
    }

    static func core(_ pointer: UnsafeMutableRawPointer?) -> ServerCore? {
        served(pointer)?.core
    }

    /// The connection's state, set when it opened and released when it closed.
    static func state(_ connection: OpaquePointer) -> ConnectionState? {
        guard let pointer = chirp_mhd_socket_context(connection) else { return nil }
        return Unmanaged<ConnectionState>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// The request line is in: make the request's context. Its pointer comes back as the access
    /// handler's `con_cls`, and is released in `completed`.
    static let uriLog: chirp_mhd_uri_log_callback = { cls, uri, connection in
        guard let core = core(cls), let connection else { return nil }
        let targetBytes = uri.map { strlen($0) } ?? -1
        var target: String?
        if let uri, targetBytes <= core.configuration.maxURLBytes {
            target = String(cString: uri)
        }
        core.requestBegan()
        state(connection)?.startWaiting()
        return Unmanaged.passRetained(RequestContext(target: target, targetBytes: targetBytes)).toOpaque()
    }

    static let access: MHD_AccessHandlerCallback = {
        cls, connection, _, method, version, uploadData, uploadSize, contextPointer in
        guard let served = served(cls), let connection, let method, let uploadSize,
              let contextPointer, let raw = contextPointer.pointee
        else { return .NO }
        let context = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
        return served.core.access(
            served: served,
            connection: connection, context: context, method: method, version: version,
            uploadData: uploadData, uploadSize: uploadSize)
    }

    static let completed: MHD_RequestCompletedCallback = { cls, connection, contextPointer, _ in
        guard let core = core(cls), let contextPointer, let raw = contextPointer.pointee else { return }
        contextPointer.pointee = nil
        Unmanaged<RequestContext>.fromOpaque(raw).release()
        core.requestCompleted()
        // On a kept-alive connection, the clock now runs for the next request.
        if let connection { state(connection)?.startWaiting() }
    }

    /// Opens and closes the connection's `ConnectionState`: retained into libmicrohttpd's
    /// socket context here, released here when the connection closes.
    static let connectionEvent: MHD_NotifyConnectionCallback = { cls, connection, socketContext, event in
        guard let served = served(cls), let connection, let socketContext else { return }
        let core = served.core
        switch event {
        case .CONNECTION_NOTIFY_STARTED:
            let state = core.deadlines.opened(
                socket: chirp_mhd_connection_fd(connection), address: MHDConnection.clientAddress(connection))
            socketContext.pointee = Unmanaged.passRetained(state).toOpaque()
        default:
            guard let pointer = socketContext.pointee else { return }
            socketContext.pointee = nil
            let state = Unmanaged<ConnectionState>.fromOpaque(pointer)
            core.deadlines.closed(state.takeUnretainedValue())
            served.dropped()
            state.release()
        }
    }

    static let collectHeader: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
        guard let cls, let key else { return .YES }
        let reading = cls.assumingMemoryBound(to: MHDConnection.HeadReading.self)
        reading.pointee.layout?.field(name: key, nameBytes: keySize, value: value, valueBytes: valueSize)
        let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
        let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) } ?? ""
        reading.pointee.headers.add(name, text)
        return .YES
    }

    /// libmicrohttpd's own messages (mostly about misbehaving clients), at debug level.
    static let log: MHD_LogCallback = { cls, format, arguments in
        guard let core = core(cls), core.logger.isEnabled(.debug), let format, let arguments else { return }
        var buffer = [CChar](repeating: 0, count: 512)
        _ = buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, format, arguments) }
        let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        core.logger.debug("libmicrohttpd", ["message": .string(message.trimmingASCIISpaces())])
    }
}
