// batch/v1 Job as a type table for go_unstructured (W-5, docs/rules.md "Work"): generated into
// batch_v1_job_schema.cpp by batch_v1_job_schema_gen.py.
#pragma once

#include "json/go_unstructured.hpp"

namespace kpw::go_unstructured {

// batch/v1 Job but its status (W-3 removes a manifest's status before the Job is decoded).
extern const Schema kBatchV1Job;

}  // namespace kpw::go_unstructured
