// One check as druba check and druba-check ask it (check/request.h): the model read by its
// extension, an option that claims something other than the certificate refused with both named,
// and the answer's text.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "check/request.h"
#include "common/diagnostics.h"

namespace druba::check {
namespace {

const std::string kInputs = std::string(DRUBA_SOURCE_DIR) + "/tests/inputs/";

TEST(CheckRequestTest, AThreadCountOtherThanTheCertificatesIsRefusedNamingBoth) {
  CheckRequest request;
  request.model = kInputs + "count-above-64.drb";
  request.certificate = kInputs + "count-above-64.true.cert.json";
  request.threads = "3";
  const CheckAnswer answer = CheckModelCertificate(request);
  EXPECT_EQ(answer.kind, CheckAnswer::Kind::kDisagrees);
  EXPECT_EQ(AnswerText(answer),
            "certificate invalid: options: --threads 3, but the certificate is for every thread "
            "count from 2\n");
}

TEST(CheckRequestTest, ADepthOtherThanTheCertificatesIsRefused) {
  const std::string dir = [] {
    std::string name = (std::filesystem::temp_directory_path() / "druba-request-XXXXXX").string();
    return std::string(mkdtemp(name.data()));
  }();
  std::ofstream(dir + "/c.json")
      << "{\"druba_certificate\": 1, \"kind\": \"cpds top-k\", \"digest\": \"xxh64:0\", \"k\": 1,"
         " \"threads\": 2, \"deadlock\": false, \"target\": false, \"proof\": \"sandwich\","
         " \"abstract_states\": [], \"below_top\": [], \"below_deep\": []}\n";
  CheckRequest request;
  request.model = std::string(DRUBA_SOURCE_DIR) + "/models/recursive-safe.pds";
  request.certificate = dir + "/c.json";
  request.top = 2;
  const CheckAnswer answer = CheckModelCertificate(request);
  EXPECT_EQ(answer.kind, CheckAnswer::Kind::kDisagrees);
  EXPECT_EQ(answer.option, "--top 2");
  request.top.reset();  // the certificate's own K: decided, and invalid (another model's digest)
  const CheckAnswer decided = CheckModelCertificate(request);
  EXPECT_EQ(decided.kind, CheckAnswer::Kind::kDecided);
  EXPECT_FALSE(decided.result.valid);
  EXPECT_EQ(decided.result.failed, "digest");
  std::filesystem::remove_all(dir);
}

TEST(CheckRequestTest, AModelOfNoKindIsAnInputError) {
  CheckRequest request;
  request.model = kInputs + "count-above-64.true.cert.json";
  request.certificate = request.model;
  EXPECT_THROW(CheckModelCertificate(request), InputError);
}

TEST(CheckRequestTest, TheAnswersText) {
  CheckAnswer answer;
  answer.result.passed = {"initial", "closure"};
  answer.result.valid = true;
  EXPECT_EQ(AnswerText(answer), "certificate valid: initial, closure\n");
  answer.result.valid = false;
  answer.result.failed = "closure";
  answer.result.example = "a step leaves the set";
  answer.result.passed = {"initial"};
  EXPECT_EQ(AnswerText(answer),
            "certificate invalid: closure: a step leaves the set\nchecked before it: initial\n");
  answer.result.stopped = "time limit of 1 s reached";
  EXPECT_EQ(AnswerText(answer).substr(0, 44), "certificate unknown: the check was stopped (");
}

}  // namespace
}  // namespace druba::check
