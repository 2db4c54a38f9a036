// The kind rows, for the route table beside them (routes.cpp) and the tests; everything else
// finds a kind through table.hpp.
#pragma once

#include "admission/route.hpp"

namespace kpw::table {

extern const Kind kPropagationPolicy;
extern const Kind kClusterPropagationPolicy;
extern const Kind kWorkloadRebalancer;
extern const Kind kScheduleTrigger;
extern const Kind kOverridePolicy;
extern const Kind kClusterOverridePolicy;
extern const Kind kFederatedResourceQuota;
extern const Kind kClusterTaintPolicy;
extern const Kind kResourceBinding;
extern const Kind kClusterResourceBinding;
extern const Kind kWork;
extern const Kind kMultiClusterService;
extern const Kind kMultiClusterIngress;
extern const Kind kResourceInterpreterWebhookConfiguration;
extern const Kind kFederatedHPA;
extern const Kind kCronFederatedHPA;
extern const Kind kResourceInterpreterCustomization;

}  // namespace kpw::table
