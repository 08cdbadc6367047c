#include "check/request.h"

#include <string>

#include "c/translate.h"
#include "check/cpds_check.h"
#include "check/drb_check.h"
#include "check/drb_explicit.h"
#include "check/drb_invariant.h"
#include "common/diagnostics.h"
#include "common/digest.h"
#include "common/files.h"
#include "common/json_reader.h"
#include "cpds/reader.h"
#include "drb/parser.h"

namespace druba::check {
namespace {

CheckAnswer Disagrees(std::string option, std::string claim) {
  CheckAnswer answer;
  answer.kind = CheckAnswer::Kind::kDisagrees;
  answer.option = std::move(option);
  answer.claim = std::move(claim);
  return answer;
}

CheckAnswer Decided(CheckResult result) {
  CheckAnswer answer;
  answer.result = std::move(result);
  return answer;
}

// The model is read first: its errors come before the certificate's.
JsonValue ReadCertificate(const CheckRequest& request) {
  return ParseJson(ReadFile(request.certificate), request.certificate);
}

CheckAnswer CheckCpds(const CheckRequest& request, LimitWatch& limits) {
  const cpds::ModelFiles model =
      cpds::ReadModelFiles(request.model, request.init, request.spec, request.target);
  const JsonValue doc = ReadCertificate(request);
  // An exhaustion proof is certified at the depth that makes the abstraction exact, not at --top.
  const bool exact_depth = doc.Has("proof") && doc.At("proof").AsString() == "exhausted";
  if (request.top && !exact_depth && doc.At("k").AsUInt() != *request.top) {
    return Disagrees("--top " + std::to_string(*request.top),
                     "for K = " + std::to_string(doc.At("k").AsUInt()));
  }
  if (request.deadlock && !doc.At("deadlock").AsBool()) {
    return Disagrees("--deadlock", "not one of deadlock freedom");
  }
  return Decided(
      CheckCpdsCertificate(doc, model.digest, model.cpds, model.init, model.target, &limits));
}

CheckAnswer CheckDrb(const CheckRequest& request, LimitWatch& limits) {
  const std::string source = c::ModelSource(request.model);
  const drb::Program program = drb::ParseProgram(source, request.model);
  const JsonValue doc = ReadCertificate(request);
  if (!request.threads.empty()) {
    const bool every = doc.Has("every_count") && doc.At("every_count").AsBool();
    const std::string count = std::to_string(doc.At("threads").AsUInt());
    // A certificate for every count from N covers --threads N too (a fixed-count run proved by
    // invariants for every count writes one): the checker decides the larger claim.
    if (count + (every ? ".." : "") != request.threads && !(every && count == request.threads)) {
      return Disagrees("--threads " + request.threads, every
                                                           ? "for every thread count from " + count
                                                           : "for " + count + " threads");
    }
  }
  if ((request.deadlock || program.check_deadlock) && !doc.At("deadlock").AsBool()) {
    return Disagrees("--deadlock", "not one of deadlock freedom");
  }
  const std::string digest = ContentDigest({source});
  const std::string kind =
      doc.Has("kind") && doc.At("kind").kind == JsonValue::Kind::kString ? doc.At("kind").text : "";
  if (kind == "drb explicit") {
    return Decided(CheckDrbExplicitCertificate(doc, digest, source, request.model, &limits));
  }
  if (kind == "drb invariant") {
    return Decided(CheckDrbInvariantCertificate(doc, digest, source, request.model, &limits));
  }
  return Decided(CheckDrbCertificate(doc, digest, source, request.model, &limits));
}

}  // namespace

CheckAnswer CheckModelCertificate(const CheckRequest& request) {
  const bool pds = request.model.ends_with(".pds");
  if (!pds && !request.model.ends_with(".drb") && !request.model.ends_with(".c")) {
    throw InputError({request.model, 0, 0}, "a model's name ends in .pds, .drb or .c");
  }
  LimitWatch limits(request.limits, request.interrupted);
  return pds ? CheckCpds(request, limits) : CheckDrb(request, limits);
}

std::string AnswerText(const CheckAnswer& answer) {
  if (answer.kind == CheckAnswer::Kind::kDisagrees) {
    return "certificate invalid: options: " + answer.option + ", but the certificate is " +
           answer.claim + "\n";
  }
  const CheckResult& r = answer.result;
  std::string passed;
  for (const std::string& p : r.passed) passed += (passed.empty() ? "" : ", ") + p;
  if (!r.stopped.empty()) {
    std::string text = "certificate unknown: the check was stopped (" + r.stopped +
                       ") before it decided every condition; nothing is claimed\n";
    if (!passed.empty()) text += "checked before it: " + passed + "\n";
    return text;
  }
  if (r.valid) return "certificate valid: " + passed + "\n";
  std::string text = "certificate invalid: " + r.failed + ": " + r.example + "\n";
  if (!passed.empty()) text += "checked before it: " + passed + "\n";
  return text;
}

}  // namespace druba::check
