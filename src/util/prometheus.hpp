// Prometheus's text exposition format: a metric's HELP and TYPE lines, and its samples.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace kpw::prometheus {

void append_number(std::string& out, double v);
void header(std::string& out, std::string_view name, std::string_view type, std::string_view help);
// `labels` already rendered (`code="200",webhook="/x"`), "" for none.
void sample(std::string& out, std::string_view name, std::string_view labels, double value);

// A metric of one unlabelled sample: its HELP and TYPE lines and the sample.
struct Single {
  std::string_view name, type, help;
  double value;
};
void singles(std::string& out, std::initializer_list<Single> metrics);

}  // namespace kpw::prometheus
