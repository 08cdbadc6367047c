// `druba verify` and `druba test` on a CPDS: load, run, report.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace druba::cli {

// Plain options for one run (STYLE.md 10: no globals).
struct CpdsOptions {
  std::string command = "verify";  // "verify" or "test"
  std::string model;
  std::string init;    // default: the model's path with .init
  std::string spec;    // a .spec file naming the target
  std::string target;  // or the target inline, 'g|t0,t1,...'
  bool json = false;
  std::uint32_t top = 1;
  std::string dump_abstract;
  double time_limit_s = 0;
  double memory_limit_mb = 0;
  std::string mode = "druba";  // druba | ai | naive
  std::uint32_t rounds = 0;    // `test` only
  std::uint32_t delays = 0;    // `test` only
};

// Returns the process exit code; throws InputError on bad input.
int RunCpds(const CpdsOptions& options, const std::atomic<bool>* interrupted);

}  // namespace druba::cli
