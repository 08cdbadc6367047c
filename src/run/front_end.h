// What a model kind offers the command line: its options (a typed struct of its own, filled by
// CLI11 through an option group the command line gives it) and one function that runs a request
// and hands back what to print. The command line keeps a table of kinds and knows nothing else
// of them; a kind knows nothing of the command line but this. No front end writes to a stream:
// the outcome carries the report or the lines to print, and the command line prints them and
// chooses the exit code.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "run/options.h"
#include "run/progress.h"
#include "run/report.h"

namespace CLI {
class Option_group;
}  // namespace CLI

namespace druba::run {

// A sink for debug lines (every solver query, refinement's steps); empty: quiet.
using LogSink = std::function<void(const std::string&)>;

// What the command line hands a run besides the request.
struct Sinks {
  const std::atomic<bool>* interrupted = nullptr;  // SIGINT/SIGTERM: end cleanly with `unknown`
  ProgressSink progress;                           // the progress line (empty: none)
  LogSink solver_log;                              // DRUBA_DEBUG_SOLVER
  LogSink refine_log;                              // DRUBA_DEBUG_REFINE
};

// What a request produced.
struct Outcome {
  enum class Kind {
    kReport,              // verify or test: `report`, exit code by its verdict
    kReplayConfirmed,     // replay: `text`, the violation confirmed
    kCertificateValid,    // check: `text`
    kCertificateInvalid,  // check: `text`, naming the condition that failed
    kCheckStopped,        // check: `text`; a limit or a signal ended it before it decided
  };
  Kind kind = Kind::kReport;
  std::optional<Report> report;
  std::string text;
  std::vector<std::string> warnings;  // for standard error, before the report
};

class FrontEnd {
 public:
  virtual ~FrontEnd() = default;
  virtual std::string_view name() const = 0;       // "a CPDS model", in messages
  virtual std::string_view group() const = 0;      // the option group's title in --help
  virtual std::string_view extension() const = 0;  // ".pds": the kind of every name ending so
  // Whether the kind reads `model` (by default: its name ends in extension()), and the endings
  // it reads, for messages.
  virtual bool Reads(const std::string& model) const { return model.ends_with(extension()); }
  virtual std::string Endings() const { return std::string(extension()); }
  // The kind's options of `command`, added to `group` and parsed into the kind's own struct.
  virtual void AddOptions(Command command, CLI::Option_group& group) = 0;
  // A usage error the option parser cannot see (empty: none), e.g. an option that bounds another.
  virtual std::string CheckUsage(const RunOptions& request) const = 0;
  // Runs `request` on its model; throws InputError on bad input.
  virtual Outcome Run(const RunOptions& request, const Sinks& sinks) = 0;
};

}  // namespace druba::run
