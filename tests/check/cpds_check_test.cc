// The CPDS certificate checker alone (check/cpds_check.h), on a small recursive program and a
// certificate druba wrote for it: genuine, it is valid; each of its claims broken (a state dropped,
// a target among the states, a target deeper than the certificate's K, another model), it is not.
// Built without any engine of druba's (druba_check_tests links src/check and the readers only).
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "check/cpds_check.h"
#include "common/digest.h"
#include "common/json_reader.h"
#include "cpds/reader.h"

namespace druba::check {
namespace {

// models/recursive-safe.pds: thread 0 recurses (0 1 -> 0 1 1 pushes), thread 1 observes.
constexpr const char* kPds =
    "4\n"
    "PDA 1 2\n"
    "0 1 -> 0 1 1\n"
    "0 1 -> 1 2\n"
    "1 2 -> 1 -\n"
    "1 1 -> 1 -\n"
    "1 1 -> 3 -\n"
    "PDA 5 6\n"
    "3 5 -> 2 6\n";
constexpr const char* kInit = "0|1,5\n";

// What `druba verify models/recursive-safe.pds --certificate` writes, without its digest.
std::vector<std::string> States() {
  return {"[0,1,5]", "[1,1,5]",  "[1,2,5]", "[1,-1,5]",
          "[2,1,6]", "[2,-1,6]", "[3,1,5]", "[3,-1,5]"};
}
constexpr const char* kBelow =
    "\"below_top\": [[0,0,1,1],[0,0,1,-1],[0,1,1,1],[0,1,1,-1],[0,1,2,1],[0,1,2,-1],[0,2,1,1],"
    "[0,2,1,-1],[0,3,1,1],[0,3,1,-1],[1,0,5,-1],[1,1,5,-1],[1,2,6,-1],[1,3,5,-1]],\n"
    "\"below_deep\": [[0,1,1],[0,1,-1]]\n";

std::string Certificate(const std::string& digest, bool target,
                        const std::vector<std::string>& states) {
  std::string text = "{\"druba_certificate\": 1, \"kind\": \"cpds top-k\", \"digest\": \"" +
                     digest + "\", \"k\": 1, \"threads\": 2, \"deadlock\": false, \"target\": " +
                     (target ? "true" : "false") +
                     ", \"proof\": \"sandwich\",\n\"abstract_states\": [";
  for (std::size_t i = 0; i < states.size(); ++i) text += (i == 0 ? "" : ",") + states[i];
  return text + "],\n" + kBelow + "}\n";
}

// The certificate checked against the program with `target_text` as its target (empty: none), the
// digest computed as druba computes it (a forger does the same).
CheckResult Check(const std::vector<std::string>& states, const std::string& target_text,
                  LimitWatch* limits = nullptr) {
  const cpds::Cpds cpds = cpds::ParsePds(kPds, "test.pds", nullptr);
  const cpds::InitialState init = cpds::ParseInit(kInit, "test.init", cpds);
  std::optional<cpds::TargetPattern> target;
  if (!target_text.empty()) target = cpds::ParseTarget(target_text, "--target", cpds);
  const std::string digest = ContentDigest({kPds, kInit, target_text});
  const JsonValue doc =
      ParseJson(Certificate(digest, !target_text.empty(), states), "test.cert.json");
  return CheckCpdsCertificate(doc, digest, cpds, init, target, limits);
}

TEST(CpdsCheckTest, DrubasCertificateIsValid) {
  const CheckResult r = Check(States(), "");
  EXPECT_TRUE(r.valid) << r.failed << ": " << r.example;
  EXPECT_TRUE(r.stopped.empty());
  EXPECT_FALSE(r.passed.empty());
}

TEST(CpdsCheckTest, EveryStateDroppedIsInvalid) {
  for (std::size_t i = 0; i < States().size(); ++i) {
    std::vector<std::string> states = States();
    states.erase(states.begin() + static_cast<std::ptrdiff_t>(i));
    const CheckResult r = Check(states, "");
    EXPECT_FALSE(r.valid) << "without " << States()[i];
    EXPECT_FALSE(r.failed.empty());
  }
}

TEST(CpdsCheckTest, AReachedTargetIsInvalid) {
  const CheckResult r = Check(States(), "3|*,*");
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.failed, "property");
}

// Thread 0 pushes 1 on 1: the stack 1.1 is reached, but a certificate at K = 1 sees only the top.
// Read as "never met", the target was judged absent and the forgery valid.
TEST(CpdsCheckTest, ATargetDeeperThanKIsNotAssumedAbsent) {
  const CheckResult r = Check(States(), "*|1.1,*");
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.failed, "property");
  // Where no state's visible part matches, the deeper symbols do not matter: shared state 0
  // comes only with thread 1 at 5.
  EXPECT_TRUE(Check(States(), "0|1.1,6").valid);
}

TEST(CpdsCheckTest, AnotherModelsCertificateIsInvalid) {
  const cpds::Cpds cpds = cpds::ParsePds(kPds, "test.pds", nullptr);
  const cpds::InitialState init = cpds::ParseInit(kInit, "test.init", cpds);
  const std::string digest = ContentDigest({kPds, kInit, ""});
  const JsonValue doc = ParseJson(Certificate("xxh64:0000000000000000", false, States()), "c");
  const CheckResult r = CheckCpdsCertificate(doc, digest, cpds, init, std::nullopt);
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.failed, "digest");
}

TEST(CpdsCheckTest, ASignalStopsTheCheckWithoutAVerdict) {
  std::atomic<bool> interrupted{true};
  LimitWatch limits({}, &interrupted);
  const CheckResult r = Check(States(), "", &limits);
  EXPECT_FALSE(r.valid);
  EXPECT_FALSE(r.stopped.empty());
}

}  // namespace
}  // namespace druba::check
