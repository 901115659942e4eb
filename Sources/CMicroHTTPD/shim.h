#ifndef CHIRP_CMICROHTTPD_SHIM_H
#define CHIRP_CMICROHTTPD_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/* MHD_start_daemon, MHD_get_connection_info and MHD_get_daemon_info are variadic, which Swift
   cannot call: these helpers give them fixed signatures. */

/* Everything the daemon is started with; zero means "leave libmicrohttpd's default". */
struct chirp_mhd_settings {
    unsigned int flags;
    unsigned int connection_limit;
    unsigned int connection_timeout;
    size_t connection_memory_limit;
    int strict_for_client;
};

typedef void *(*chirp_mhd_uri_log_callback)(void *cls, const char *uri,
                                            struct MHD_Connection *connection);

static inline struct MHD_Daemon *
chirp_mhd_start(const struct chirp_mhd_settings *s,
                MHD_AccessHandlerCallback access, void *access_cls,
                MHD_RequestCompletedCallback completed, void *completed_cls,
                MHD_NotifyConnectionCallback notify, void *notify_cls,
                chirp_mhd_uri_log_callback uri_log, void *uri_log_cls,
                MHD_LogCallback logger, void *logger_cls)
{
    struct MHD_OptionItem ops[16];
    int n = 0;
#define CHIRP_OPT(o, v, p) do { ops[n].option = (o); ops[n].value = (intptr_t)(v); \
                                ops[n].ptr_value = (void *)(p); n++; } while (0)
    /* First, so that start-up messages already go to the logger. */
    if (logger) CHIRP_OPT(MHD_OPTION_EXTERNAL_LOGGER, logger, logger_cls);
    if (s->connection_limit) CHIRP_OPT(MHD_OPTION_CONNECTION_LIMIT, s->connection_limit, NULL);
    if (s->connection_timeout) CHIRP_OPT(MHD_OPTION_CONNECTION_TIMEOUT, s->connection_timeout, NULL);
    if (s->connection_memory_limit)
        CHIRP_OPT(MHD_OPTION_CONNECTION_MEMORY_LIMIT, s->connection_memory_limit, NULL);
    if (s->strict_for_client) CHIRP_OPT(MHD_OPTION_STRICT_FOR_CLIENT, s->strict_for_client, NULL);
    CHIRP_OPT(MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls);
    CHIRP_OPT(MHD_OPTION_NOTIFY_CONNECTION, notify, notify_cls);
    CHIRP_OPT(MHD_OPTION_URI_LOG_CALLBACK, uri_log, uri_log_cls);
    CHIRP_OPT(MHD_OPTION_END, 0, NULL);
#undef CHIRP_OPT
    return MHD_start_daemon(s->flags, 0, NULL, NULL, access, access_cls,
                            MHD_OPTION_ARRAY, ops, MHD_OPTION_END);
}

/* The daemon's epoll descriptor, for an external event loop to wait on; -1 without epoll. */
static inline int chirp_mhd_epoll_fd(struct MHD_Daemon *daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info ? info->epoll_fd : -1;
}

/* The connection's socket, or -1. */
static inline int chirp_mhd_connection_fd(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? (int)info->connect_fd : -1;
}

/* How many bytes the request's line and header fields took, with its line ends and the empty
   line after them; 0 when unknown. */
static inline size_t chirp_mhd_head_size(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info ? info->header_size : 0;
}

/* The per-connection pointer set in the connection notification callback, or NULL. */
static inline void *chirp_mhd_socket_context(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/* accept4 with a nonblocking, close-on-exec socket (glibc declares accept4 only for
   _GNU_SOURCE, which a module map cannot promise). */
static inline int chirp_accept(int fd, struct sockaddr *addr, socklen_t *len)
{
    return (int)syscall(SYS_accept4, fd, addr, len, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

/* Writes the IP address of sa as text into buf; returns 0 on success, -1 otherwise. */
static inline int chirp_sockaddr_ip(const struct sockaddr *sa, char *buf, size_t len)
{
    if (!sa || len == 0) return -1;
    const void *src;
    if (sa->sa_family == AF_INET) src = &((const struct sockaddr_in *)sa)->sin_addr;
    else if (sa->sa_family == AF_INET6) src = &((const struct sockaddr_in6 *)sa)->sin6_addr;
    else return -1;
    return inet_ntop(sa->sa_family, src, buf, (socklen_t)len) ? 0 : -1;
}

/* Writes the client's IP address as text into buf; returns 0 on success, -1 otherwise. */
static inline int chirp_mhd_client_ip(struct MHD_Connection *connection, char *buf, size_t len)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? chirp_sockaddr_ip(info->client_addr, buf, len) : -1;
}

#endif
