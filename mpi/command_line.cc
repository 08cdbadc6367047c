#include "mpi/command_line.h"

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/command_line.h"
#include "cli/exit_codes.h"
#include "common/diagnostics.h"
#include "common/resources.h"

namespace druba::mpi {
namespace {

using run::Command;

std::atomic<bool> g_interrupted{false};

extern "C" void OnSignal(int /*signal*/) {
  g_interrupted.store(true);
}

// druba-mpi's own options of `command`: how states travel, and how often progress is told.
void AddOwnOptions(CLI::App& sub, Command command, distributed::Request& search,
                   double& progress_every) {
  sub.add_option("--batch-bytes", search.batch_bytes,
                 "bytes of successors a process queues before an exchange (default 4 MiB)")
      ->check(CLI::PositiveNumber);
  sub.add_option("--progress-every", progress_every,
                 "with --progress: seconds between lines (default 2)")
      ->check(CLI::PositiveNumber);
  if (command == Command::kTest) {
    sub.add_flag("--stepwise", search.stepwise,
                 "reach the bounds one raise at a time, as verify does");
  }
}

// An option's long name ("--top"; empty for the model and --help's short name alone). Not
// get_name(), which is empty once an option is hidden.
std::string LongName(const CLI::Option& option) {
  return option.get_lnames().empty() ? "" : "--" + option.get_lnames().front();
}

// Whether some kind's distributed run of `command` takes the option named `name`.
bool AnyTakes(std::span<Kind* const> kinds, Command command, const std::string& name) {
  for (const Kind* kind : kinds) {
    for (const std::string_view taken : kind->Takes(command)) {
      if (taken == name) return true;
    }
  }
  return false;
}

// druba's options of each command (its own and its kinds' groups', not --help), taken before
// druba-mpi adds its own: those are the options a kind's distributed run may not take.
using DrubasOptions = std::map<Command, std::vector<CLI::Option*>>;
DrubasOptions DrubasOptionsOf(const cli::Commands& commands) {
  DrubasOptions out;
  for (const auto& [command, sub] : commands.apps) {
    std::vector<CLI::Option*>& all = out[command];
    for (CLI::Option* option : sub->get_options()) {
      if (option != sub->get_help_ptr()) all.push_back(option);
    }
    for (const cli::KindGroup& entry : commands.groups) {
      if (entry.group->get_parent() != sub) continue;
      for (CLI::Option* option : entry.group->get_options()) all.push_back(option);
    }
  }
  return out;
}

// druba's options that no kind's distributed run takes: left out of --help (a run refuses them).
void HideUntaken(const DrubasOptions& druba, std::span<Kind* const> kinds) {
  for (const auto& [command, options] : druba) {
    for (CLI::Option* option : options) {
      const std::string name = LongName(*option);
      if (name.empty() || AnyTakes(kinds, command, name)) continue;
      option->group("");
    }
  }
}

// A given option that the kind's distributed run does not take (empty: none).
std::string Untaken(const DrubasOptions& druba, Kind& kind, Command command) {
  const std::span<const std::string_view> taken = kind.Takes(command);
  for (const CLI::Option* option : druba.at(command)) {
    const std::string name = LongName(*option);
    if (option->count() == 0 || name.empty()) continue;
    bool takes = false;
    for (const std::string_view t : taken) takes = takes || t == name;
    if (!takes) {
      return fmt::format(
          "druba-mpi: {}: druba's {} of {} has it, the distributed one does not "
          "(docs/distributed.md)",
          name, run::CommandName(command), kind.front().name());
    }
  }
  return "";
}

// The progress line of --progress, on standard error (process 0).
distributed::Progress ProgressLines() {
  return [clock = Stopwatch()](const distributed::ProgressLine& line) {
    std::uint64_t all = 0;
    for (const std::uint64_t count : line.counts) all += count;
    std::fprintf(stderr, "%s\n",
                 fmt::format("druba-mpi: {:6.1f} s  {}  {} {} (per process: {})  "
                             "memory per process: {:.0f} MB",
                             clock.Seconds(), line.phase, all, line.noun,
                             fmt::join(line.counts, " "), fmt::join(line.memory_mb, " "))
                     .c_str());
  };
}

// Ends every process with `code`, process 0 having printed `message` (every process met the same
// error: each parsed the same command line).
int Refuse(const distributed::Comm& comm, int code, const std::string& message) {
  if (comm.rank() == 0 && !message.empty()) std::fprintf(stderr, "%s\n", message.c_str());
  comm.Max(0);
  return code;
}

// The model's kind, and whether the options suit it: 0, or every process ends with the code
// (process 0 printing why).
int ChooseKind(const distributed::Comm& comm, std::span<Kind* const> kinds,
               const cli::Commands& commands, const DrubasOptions& druba,
               const run::RunOptions& options, Kind*& kind) {
  std::vector<run::FrontEnd*> fronts;
  for (Kind* k : kinds) fronts.push_back(&k->front());
  try {
    const run::FrontEnd& front = cli::KindOf(fronts, options.model);
    for (Kind* k : kinds) {
      if (&k->front() == &front) kind = k;
    }
    cli::CheckKindOptions(commands.groups, front, options.model);
  } catch (const InputError& e) {
    return Refuse(comm, exit_code::kInput, e.what());
  }
  const std::string untaken = Untaken(druba, *kind, options.command);
  if (!untaken.empty()) return Refuse(comm, exit_code::kUsage, untaken);
  if (const std::string wrong = kind->front().CheckUsage(options); !wrong.empty()) {
    return Refuse(comm, exit_code::kUsage, wrong);
  }
  return 0;
}

}  // namespace

int Main(int argc, char** argv, distributed::Comm& comm, std::span<Kind* const> kinds) {
  std::vector<run::FrontEnd*> fronts;
  for (Kind* kind : kinds) fronts.push_back(&kind->front());
  CLI::App app{"druba-mpi: druba's Round-Robin search over the processes of an MPI run"};
  app.require_subcommand(1);
  run::RunOptions options;
  Request request;
  double progress_every = 2;
  constexpr Command kRuns[] = {Command::kVerify, Command::kTest};
  const cli::Commands commands = cli::AddCommands(app, options, fronts, kRuns);
  const DrubasOptions druba = DrubasOptionsOf(commands);
  for (const auto& [command, sub] : commands.apps) {
    AddOwnOptions(*sub, command, request.search, progress_every);
  }
  HideUntaken(druba, kinds);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = comm.rank() == 0 ? app.exit(e) : e.get_exit_code();
    return Refuse(comm, code == 0 ? 0 : exit_code::kUsage, "");
  }
  for (const auto& [command, sub] : commands.apps) {
    if (sub->parsed()) options.command = command;
  }
  Kind* kind = nullptr;
  if (const int code = ChooseKind(comm, kinds, commands, druba, options, kind); code != 0) {
    return code;
  }
  if (options.progress) {
    request.search.progress = ProgressLines();
    request.search.progress_interval_s = progress_every;
  }
  request.options = options;
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGHUP, OnSignal);
  LimitWatch limits({options.time_limit_s, options.memory_limit_mb}, &g_interrupted);
  run::Outcome outcome;
  try {
    outcome = kind->Run(comm, request, limits);
  } catch (const ReadFailed& e) {
    return Refuse(comm, exit_code::kInput, e.message);
  }
  // Only process 0 ends with the code, after every process has ended its part: mpirun returns
  // the first code other than 0 and then aborts every process still running, which took it 2 s
  // after the run had stopped on a limit when every process ended with 5.
  int code = exit_code::kSafe;
  if (outcome.report) outcome.report->program = "druba-mpi";
  if (comm.rank() == 0) code = cli::Guarded([&] { return cli::Deliver(outcome); });
  comm.Max(0);
  return code;
}

}  // namespace druba::mpi
