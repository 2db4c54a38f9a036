// RIC-1 against a published ClusterState (admission/cluster_state.hpp), and the state itself:
// readers see each publish, on any thread.
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "admission/cluster_state.hpp"
#include "support.hpp"
#include "validators/resource_interpreter_customization.hpp"

namespace {

using kpw::ClusterState;
using kpw::RicEntry;
using kpw::RicIndex;

constexpr kpw::karmada::OperationMask kRetain = 1u << 0;
constexpr kpw::karmada::OperationMask kReplica = 1u << 1;
constexpr kpw::karmada::OperationMask kHealth = 1u << 6;

std::string ric(std::string_view name, std::string_view kind, std::string_view customizations) {
  return R"({"apiVersion":"config.karmada.io/v1alpha1","kind":"ResourceInterpreterCustomization",)"
         R"("metadata":{"name":")" +
         std::string(name) + R"("},"spec":{"target":{"apiVersion":"apps/v1","kind":")" +
         std::string(kind) + R"("},"customizations":)" + std::string(customizations) + "}}";
}

constexpr std::string_view kRetainScript =
    R"({"retention":{"luaScript":"function Retain(d, o) return d end"}})";

// A state holding `entries` for apps/v1 Deployment, published.
std::unique_ptr<ClusterState> published(std::vector<RicEntry> entries) {
  auto index = std::make_shared<RicIndex>();
  std::string key;
  kpw::ric_target_key("apps/v1", "Deployment", key);
  index->objects = entries.size();
  index->by_target[key] = std::move(entries);
  auto state = std::make_unique<ClusterState>();
  state->publish(std::move(index));
  return state;
}

kpw::test::Verdict judge(const ClusterState* state, const std::string& object,
                         kpw::test::Call call = kpw::test::Call::cluster_scoped()) {
  call.settings.cluster = state;
  return kpw::test::run(&kpw::validate_resource_interpreter_customization, object, call);
}

}  // namespace

TEST_CASE("RIC-1 another customization of the target scripting the operation: upstream's text") {
  const auto state = published({{"a", kRetain | kHealth}});
  const auto v = judge(state.get(), ric("b", "Deployment", kRetainScript));
  REQUIRE(v.errors.size() == 1);
  CHECK(v.errors[0].rule == kpw::rules::kRIC1);
  CHECK(v.errors[0].text() ==
        "spec.customizations.retention.luaScript: Invalid value: conflicting with "
        "InterpreterOperation(Retain) of existing ResourceInterpreterCustomization(a)");
  CHECK(v.warnings.empty());  // judged: no RIC-1 warning
}

TEST_CASE("RIC-1 the first conflicting customization by name, its first operation in order") {
  const auto state = published({{"a", kHealth}, {"b", kReplica | kHealth}, {"c", kRetain}});
  const auto v = judge(
      state.get(),
      ric("mine", "Deployment",
          R"({"healthInterpretation":{"luaScript":"x = 1"},"replicaResource":{"luaScript":"x = 2"},)"
          R"("retention":{"luaScript":"x = 3"}})"));
  REQUIRE(v.errors.size() == 1);
  CHECK(v.errors[0].text() ==
        "spec.customizations.healthInterpretation.luaScript: Invalid value: conflicting with "
        "InterpreterOperation(InterpretHealth) of existing ResourceInterpreterCustomization(a)");
}

TEST_CASE("RIC-1 itself by name (an UPDATE), another kind, InterpretDependency: no conflict") {
  const auto state = published({{"mine", kRetain}});
  CHECK(judge(state.get(), ric("mine", "Deployment", kRetainScript)).allowed());
  CHECK(judge(state.get(), ric("other", "StatefulSet", kRetainScript)).allowed());
  CHECK(judge(state.get(),
              ric("dep", "Deployment", R"({"dependencyInterpretation":{"luaScript":"x = 1"}})"))
            .allowed());
  // An empty script scripts nothing.
  CHECK(judge(state.get(), ric("empty", "Deployment", R"({"retention":{"luaScript":""}})"))
            .allowed());
}

TEST_CASE("RIC-1 a conflict stops there: RIC-2 is not reached, as upstream") {
  const auto state = published({{"a", kRetain}});
  const auto v = judge(state.get(), ric("b", "Deployment",
                                        R"({"retention":{"luaScript":"x"},"healthInterpretation":)"
                                        R"({"luaScript":"x = 1 & 2"}})"));
  REQUIRE(v.errors.size() == 1);
  CHECK(v.errors[0].rule == kpw::rules::kRIC1);
}

TEST_CASE("RIC-1 not judged: no API server configured warns whatever the verdict") {
  const auto none = judge(nullptr, ric("b", "Deployment", kRetainScript));
  CHECK(none.allowed());
  REQUIRE(none.warnings.size() == 1);
  CHECK(none.warnings[0] == kpw::kRIC1NotChecked);
}

TEST_CASE("RIC-1 before the first list: refused, naming the API server and its last failure") {
  // Readiness never waits for the cache (docs/operations.md, "Readiness"): the review that
  // needs it is refused instead, with the cause, and may be sent again.
  ClusterState syncing("https://karmada-apiserver.karmada-system.svc:5443");
  syncing.set_failure("HTTP 403 Forbidden: nope");
  const auto early = judge(&syncing, ric("b", "Deployment", kRetainScript));
  CHECK_FALSE(early.allowed());
  CHECK(early.code == kpw::kRIC1NotListedCode);
  CHECK(early.message.find("RIC-1 cannot be judged yet: this webhook has not listed the "
                           "cluster's ResourceInterpreterCustomizations from "
                           "https://karmada-apiserver.karmada-system.svc:5443") == 0);
  CHECK(early.message.find("(the last request failed: HTTP 403 Forbidden: nope)") !=
        std::string::npos);
  // What else the object breaks is said first, as field errors.
  const auto invalid =
      judge(&syncing, ric("b", "Deployment", R"({"retention":{"luaScript":"&"}})"));
  CHECK_FALSE(invalid.allowed());
  REQUIRE(invalid.errors.size() == 1);
  CHECK(invalid.errors[0].rule == kpw::rules::kRIC2);
}

TEST_CASE("RIC-1 from a silent cache: judged, with a warning saying how long it has been") {
  // stale_after 1 ms, nothing heard since the publish: stale.
  ClusterState state("https://api:6443", std::chrono::milliseconds(1));
  auto index = std::make_shared<RicIndex>();
  std::string key;
  kpw::ric_target_key("apps/v1", "Deployment", key);
  index->by_target[key] = {{"a", kRetain}};
  state.publish(std::move(index));  // heard from now
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK_FALSE(state.fresh());
  const auto v = judge(&state, ric("b", "Deployment", kRetainScript));
  REQUIRE(v.errors.size() == 1);
  CHECK(v.errors[0].rule == kpw::rules::kRIC1);
  REQUIRE(v.warnings.size() == 1);
  CHECK(v.warnings[0].find("RIC-1 judged from a cache that has heard nothing from "
                           "https://api:6443 for 0s") == 0);
  // Heard from again: fresh, no warning.
  ClusterState fresh("https://api:6443", std::chrono::minutes(5));
  fresh.publish(std::make_shared<RicIndex>());
  CHECK(fresh.fresh());
  CHECK(judge(&fresh, ric("b", "Deployment", kRetainScript)).warnings.empty());
}

TEST_CASE("cluster state: a state built where a destroyed one was is read afresh") {
  // A thread remembers the last index it read by state and generation: a new state at the same
  // address once showed the old state's index.
  for (int round = 0; round < 20; ++round) {
    auto first = std::make_unique<ClusterState>();
    auto index = std::make_shared<RicIndex>();
    index->objects = 1;
    first->publish(std::move(index));
    REQUIRE(first->ric_index()->objects == 1);
    const void* where = first.get();
    first.reset();
    auto second = std::make_unique<ClusterState>();
    auto other = std::make_shared<RicIndex>();
    other->objects = 2;
    second->publish(std::move(other));
    INFO("same address: " << (where == second.get()));
    CHECK(second->ric_index()->objects == 2);
  }
}

TEST_CASE("cluster state: every thread reads the latest publish") {
  ClusterState state;
  CHECK(state.status() == ClusterState::Status::kSyncing);
  CHECK(state.ric_index() == nullptr);
  for (std::size_t n = 1; n <= 50; ++n) {
    auto index = std::make_shared<RicIndex>();
    index->objects = n;
    state.publish(std::move(index));
    CHECK(state.ric_index()->objects == n);
    std::size_t seen = 0;
    std::thread([&] { seen = state.ric_index()->objects; }).join();
    CHECK(seen == n);
  }
  CHECK(state.status() == ClusterState::Status::kSynced);
}
