#include "util/prometheus.hpp"

#include <cstdio>

namespace kpw::prometheus {

void append_number(std::string& out, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  out += buf;
}

void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

void sample(std::string& out, std::string_view name, std::string_view labels, double value) {
  out += name;
  if (!labels.empty()) {
    out += '{';
    out += labels;
    out += '}';
  }
  out += ' ';
  append_number(out, value);
  out += '\n';
}

void singles(std::string& out, std::initializer_list<Single> metrics) {
  for (const Single& m : metrics) {
    header(out, m.name, m.type, m.help);
    sample(out, m.name, "", m.value);
  }
}

}  // namespace kpw::prometheus
