// One check as a program asks it: a model file (.pds or .drb), a certificate file, and what the
// user claims to check (a thread count, a depth, deadlock freedom). Read, compared with the
// certificate's own claim, and decided by the checker of the certificate's kind. `druba check`
// and `druba-check` both ask here, so that the two programs cannot differ.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "check/result.h"
#include "common/resources.h"

namespace druba::check {

struct CheckRequest {
  std::string model;        // .pds or .drb
  std::string certificate;  // the certificate's file
  // The claim the user asks about; a certificate that claims something else is refused
  // (Kind::kDisagrees) rather than checked for a claim nobody asked for.
  std::string threads;               // .drb: "N" or "N.." (empty: the certificate's)
  std::optional<std::uint32_t> top;  // .pds: the depth K (empty: the certificate's)
  bool deadlock = false;             // deadlock freedom too (.drb: or `check deadlock;`)
  // .pds: the initial state's file (empty: the model's name with .init) and the target, a file
  // (`spec`) or its text (`target`).
  std::string init;
  std::string spec;
  std::string target;
  ResourceLimits limits;
  const std::atomic<bool>* interrupted = nullptr;  // set by a signal: stop
};

struct CheckAnswer {
  enum class Kind : std::uint8_t { kDecided, kDisagrees };
  Kind kind = Kind::kDecided;
  CheckResult result;  // kDecided: valid, invalid or stopped
  std::string option;  // kDisagrees: the option given ("--threads 3")
  std::string claim;   // and what the certificate claims instead ("for 2 threads")
};

// Throws InputError (file, line and column) for a model or certificate that cannot be read, and
// for a model whose name ends in neither .pds nor .drb.
CheckAnswer CheckModelCertificate(const CheckRequest& request);

// The answer's text as both programs print it: "certificate valid: ...", "certificate invalid:
// ..." (an option that disagrees with the certificate's claim among them), or "certificate
// unknown: ..." with the conditions checked before the stop.
std::string AnswerText(const CheckAnswer& answer);

}  // namespace druba::check
