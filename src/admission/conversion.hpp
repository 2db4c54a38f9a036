// The ConversionReview envelope (apiextensions.k8s.io/v1): a CRD's conversion webhook, as
// controller-runtime's conversion handler answers it (docs/compatibility.md, "/convert"). The
// route's converter converts each object; this file decodes the review and writes the answer.
#pragma once

#include <string>

#include "admission/route.hpp"
#include "admission/service.hpp"

namespace kpw {

// Answers one POSTed ConversionReview for `route` (route.takes == Takes::kConversionReview):
// HTTP 200 with the review's `response` (uid, convertedObjects, result Success or Failure), or
// HTTP 400 with an empty body when the body is not a ConversionReview with a request. The content
// type is not read (controller-runtime reads none). `body` is parsed in place. Whatever the
// converter throws is answered with upstream's message for a recovered panic.
void handle_conversion(const Route& route, std::string& body, HttpAnswer& answer);

}  // namespace kpw
