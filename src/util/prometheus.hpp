// Prometheus's text exposition format: a metric's HELP and TYPE lines, and its samples.
#pragma once

#include <string>
#include <string_view>

namespace kpw::prometheus {

void append_number(std::string& out, double v);
void header(std::string& out, std::string_view name, std::string_view type, std::string_view help);
// `labels` already rendered (`code="200",webhook="/x"`), "" for none.
void sample(std::string& out, std::string_view name, std::string_view labels, double value);

}  // namespace kpw::prometheus
