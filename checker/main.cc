// druba-check: the certificate checker as a program of its own. It links the model readers
// (src/cpds's reader, src/drb), the checker (src/check) and src/common: none of druba's engines,
// so that a sceptic can build and read its trusted base alone (docs/certificates.md). `druba check`
// asks the same library the same question (check::CheckModelCertificate) and answers the same.
//
//   druba-check MODEL.drb --certificate FILE [--threads N|N..] [--deadlock]
//   druba-check MODEL.pds --certificate FILE [--top K] [--init F] [--spec F | --target T]
//
// Exit codes, as druba check's: 0 valid, 1 usage, 2 unreadable input, 5 stopped by a limit or a
// signal, 6 internal error, 10 invalid.
#include <atomic>
#include <csignal>
#include <cstdint>
#include <exception>
#include <iostream>
#include <new>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "check/request.h"
#include "common/diagnostics.h"

namespace {

constexpr int kValid = 0;
constexpr int kUsage = 1;
constexpr int kInput = 2;
constexpr int kStopped = 5;
constexpr int kInternal = 6;
constexpr int kInvalid = 10;

std::atomic<bool> g_interrupted{false};

extern "C" void OnCheckSignal(int /*signal*/) {
  g_interrupted.store(true);
}

int Check(const druba::check::CheckRequest& request) {
  const druba::check::CheckAnswer answer = druba::check::CheckModelCertificate(request);
  std::cout << druba::check::AnswerText(answer);
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "druba-check: cannot write the answer to standard output\n";
    return kInternal;
  }
  if (answer.kind == druba::check::CheckAnswer::Kind::kDisagrees) return kInvalid;
  if (!answer.result.stopped.empty()) return kStopped;
  return answer.result.valid ? kValid : kInvalid;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"druba-check: checks a druba certificate against its model, alone"};
  druba::check::CheckRequest request;
  std::uint32_t top = 0;
  app.add_option("model", request.model, "the model: a .drb program or a CPDS (.pds)")->required();
  app.add_option("--certificate", request.certificate, "the certificate (JSON)")->required();
  app.add_option("--threads", request.threads,
                 ".drb: the thread count claimed, N or N.. (default: the certificate's)");
  CLI::Option* top_option =
      app.add_option("--top", top, ".pds: the depth K claimed (default: the certificate's)")
          ->check(CLI::PositiveNumber);
  app.add_flag("--deadlock", request.deadlock, "claim deadlock freedom too");
  app.add_option("--init", request.init, ".pds: the initial state (default: MODEL with .init)");
  CLI::Option* spec = app.add_option("--spec", request.spec, ".pds: the target, from a file");
  app.add_option("--target", request.target, ".pds: the target, as text")->excludes(spec);
  app.add_option("--time-limit", request.limits.time_limit_s, "seconds; then unknown (exit 5)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--memory-limit", request.limits.memory_limit_mb, "MB; then unknown (exit 5)")
      ->check(CLI::NonNegativeNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kValid : kUsage;
  }
  if (top_option->count() > 0) request.top = top;
  std::signal(SIGINT, OnCheckSignal);
  std::signal(SIGTERM, OnCheckSignal);
  std::signal(SIGHUP, OnCheckSignal);
  request.interrupted = &g_interrupted;
  try {
    return Check(request);
  } catch (const druba::InputError& e) {
    std::cerr << e.what() << "\n";
    return kInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "druba-check: out of memory; rerun with --memory-limit to stop cleanly\n";
    return kInternal;
  } catch (const std::exception& e) {
    std::cerr << "druba-check: internal error: " << e.what() << "\n";
    return kInternal;
  } catch (...) {  // nothing a library throws may end the process with a signal
    std::cerr << "druba-check: internal error: an exception of an unknown type\n";
    return kInternal;
  }
}
