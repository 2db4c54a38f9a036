// IP addresses as Kubernetes' netutils.ParseIPSloppy reads them (Go 1.16's net.ParseIP: IPv4
// dotted decimal with leading zeros allowed, `010.001.1.1`; IPv6 with `::` and a trailing IPv4;
// no zone), for the rules that tell an IP from a DNS name (MCI-5, MCI-9).
#pragma once

#include <string_view>

namespace kpw {

bool is_ip_sloppy(std::string_view text);

}  // namespace kpw
