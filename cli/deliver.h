// What every front end does with a run's report: the progress line on stderr when asked, the
// output files, then the report on stdout (text or JSON); the exit code is the verdict's.
#pragma once

#include <cstdio>
#include <iostream>
#include <string>

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

}  // namespace druba::cli
