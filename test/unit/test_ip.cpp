// util/ip: IP addresses as Kubernetes' netutils.ParseIPSloppy reads them (MCI-5, MCI-9), the cases
// upstream's binary was asked about in the MultiClusterIngress fixtures and Go 1.16's own tests.
#include <catch2/catch.hpp>

#include "util/ip.hpp"

using kpw::is_ip_sloppy;

TEST_CASE("ip: IPv4 with leading zeros, as ParseIPSloppy reads it") {
  CHECK(is_ip_sloppy("192.0.2.10"));
  CHECK(is_ip_sloppy("010.001.1.1"));
  CHECK(is_ip_sloppy("0000000001.2.3.4"));
  CHECK_FALSE(is_ip_sloppy("10.0.0.300"));
  CHECK_FALSE(is_ip_sloppy("1.2.3"));
  CHECK_FALSE(is_ip_sloppy("1.2.3.4."));
  CHECK_FALSE(is_ip_sloppy("1..2.3"));
  CHECK_FALSE(is_ip_sloppy("shop.example.com"));
  CHECK_FALSE(is_ip_sloppy(""));
}

TEST_CASE("ip: IPv6, with :: and a trailing IPv4") {
  CHECK(is_ip_sloppy("::1"));
  CHECK(is_ip_sloppy("::"));
  CHECK(is_ip_sloppy("2001:db8::1"));
  CHECK(is_ip_sloppy("::ffff:1.2.3.4"));
  CHECK(is_ip_sloppy("1:2:3:4:5:6:7:8"));
  CHECK(is_ip_sloppy("1:2:3:4:5:6:1.2.3.4"));
  CHECK_FALSE(is_ip_sloppy("1:2:3:4:5:6:7:8:9"));
  CHECK_FALSE(is_ip_sloppy("1::2::3"));
  CHECK_FALSE(is_ip_sloppy("1:2:3:4:5:6:7::8"));  // :: must stand for at least one group
  CHECK_FALSE(is_ip_sloppy("12345::1"));
  CHECK_FALSE(is_ip_sloppy("fe80::1%eth0"));
  CHECK_FALSE(is_ip_sloppy("1:2:3:4:5:1.2.3.4"));
}
