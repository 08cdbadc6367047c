// What every front end does with a run's report: the progress line on stderr when asked, the
// output files, then the report on stdout (text or JSON); the exit code is the verdict's.
#pragma once

#include <cstdio>
#include <iostream>
#include <string>

#include "check/cpds_check.h"
#include "cli/exit_codes.h"
#include "run/progress.h"
#include "run/report.h"

namespace druba::cli {

inline run::ProgressSink StderrProgress(const run::RunOptions& options) {
  if (!options.progress) return {};
  return [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
}

inline int Deliver(const run::Report& report) {
  for (const std::string& warning : run::WriteOutputFiles(report)) std::cerr << warning << "\n";
  std::cout << (report.options->json ? run::JsonReport(report) : run::TextReport(report));
  std::cout.flush();
  return ExitCodeFor(report.verdict);
}

// `druba check` given a model option of `verify` (--threads, --top, --deadlock) that the
// certificate does not agree with: invalid (exit 10), naming both.
inline int OptionDisagrees(const std::string& option, const std::string& certificate) {
  std::cout << "certificate invalid: options: " << option << ", but the certificate is "
            << certificate << "\n";
  return exit_code::kInvalidCertificate;
}

// `druba check`'s answer: valid (exit 0) with the conditions checked, or invalid (exit 10) with
// the condition that failed and an instance of it.
inline int PrintCheck(const check::CheckResult& r) {
  std::string passed;
  for (const std::string& p : r.passed) passed += (passed.empty() ? "" : ", ") + p;
  if (r.valid) {
    std::cout << "certificate valid: " << passed << "\n";
    return exit_code::kSafe;
  }
  std::cout << "certificate invalid: " << r.failed << ": " << r.example << "\n";
  if (!passed.empty()) std::cout << "checked before it: " << passed << "\n";
  return exit_code::kInvalidCertificate;
}

}  // namespace druba::cli
