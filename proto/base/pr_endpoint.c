/* pr_endpoint: endpoint syntax and the loopback rule. See pr_endpoint.h. */
#include "pr_endpoint.h"

#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

/* A decimal port 1..65535 filling the whole of s (no sign, no blanks). */
static bool port_ok(const char *s)
{
    unsigned long v = 0;
    size_t i = 0;

    for (; s[i] >= '0' && s[i] <= '9'; i++) {
        v = v * 10 + (unsigned long)(s[i] - '0');
        if (v > 65535)
            return false;
    }
    return i > 0 && s[i] == '\0' && s[0] != '0' && v >= 1;
}

/* host (len bytes) is a strict dotted-quad IPv4 literal whose first octet
 * is 127. inet_pton alone would do on glibc, but other libcs accept octal
 * or fewer parts, so the digits are checked here first. */
static bool ipv4_loopback(const char *host, size_t len)
{
    char buf[16];
    int parts = 0;
    size_t i = 0;

    if (len == 0 || len >= sizeof buf)
        return false;
    while (i < len) {
        size_t start = i, value = 0;
        for (; i < len && host[i] >= '0' && host[i] <= '9'; i++)
            value = value * 10 + (size_t)(host[i] - '0');
        size_t digits = i - start;
        if (digits == 0 || digits > 3 || value > 255 || (digits > 1 && host[start] == '0'))
            return false;
        if (parts == 0 && value != 127)
            return false;
        parts++;
        if (i < len && (host[i] != '.' || i + 1 == len))
            return false;
        i += i < len;
    }
    memcpy(buf, host, len);
    buf[len] = '\0';
    struct in_addr a;
    return parts == 4 && inet_pton(AF_INET, buf, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

/* host (len bytes) is "[ADDR]" with ADDR the IPv6 loopback. */
static bool ipv6_loopback(const char *host, size_t len)
{
    char buf[INET6_ADDRSTRLEN + 1];
    struct in6_addr a;

    if (len < 3 || host[0] != '[' || host[len - 1] != ']' || len - 2 >= sizeof buf)
        return false;
    memcpy(buf, host + 1, len - 2);
    buf[len - 2] = '\0';
    return inet_pton(AF_INET6, buf, &a) == 1 && IN6_IS_ADDR_LOOPBACK(&a);
}

bool pr_endpoint_is_local(const char *endpoint)
{
    if (endpoint == NULL)
        return false;
    if (strncmp(endpoint, "ipc://", 6) == 0)
        return endpoint[6] != '\0';
    if (strncmp(endpoint, "inproc://", 9) == 0)
        return endpoint[9] != '\0';
    if (strncmp(endpoint, "tcp://", 6) != 0)
        return false;
    const char *host = endpoint + 6, *colon = strrchr(host, ':');
    if (colon == NULL || !port_ok(colon + 1))
        return false;
    size_t len = (size_t)(colon - host);
    return ipv4_loopback(host, len) || ipv6_loopback(host, len);
}

bool pr_endpoint_is_valid(const char *endpoint)
{
    if (endpoint == NULL)
        return false;
    if (strncmp(endpoint, "ipc://", 6) == 0)
        return endpoint[6] != '\0';
    if (strncmp(endpoint, "tcp://", 6) != 0)
        return false;
    const char *host = endpoint + 6, *colon = strrchr(host, ':');
    if (colon == NULL || colon == host || !port_ok(colon + 1))
        return false;
    if (host[0] == '[')
        return colon[-1] == ']' && colon - host > 2;
    return memchr(host, ']', (size_t)(colon - host)) == NULL;
}
