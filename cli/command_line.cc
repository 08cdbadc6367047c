#include "cli/command_line.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cli/exit_codes.h"
#include "common/diagnostics.h"
#include "front/options.h"
#include "run/report.h"

namespace druba::cli {
namespace {

std::atomic<bool> g_interrupted{false};  // set by SIGINT; the run polls it and ends cleanly

extern "C" void OnInterrupt(int /*signal*/) {
  g_interrupted.store(true);
}

using front::NotEmpty;
using run::Command;
using run::FrontEnd;
using run::RunOptions;

}  // namespace

FrontEnd& KindOf(std::span<FrontEnd* const> kinds, const std::string& model) {
  for (FrontEnd* kind : kinds) {
    if (kind->Reads(model)) return *kind;
  }
  std::error_code error;
  if (std::filesystem::is_directory(model, error)) {
    throw InputError({model, 0, 0}, "it is a directory, not a model");
  }
  std::string known;
  for (const FrontEnd* kind : kinds) {
    known += std::string(known.empty() ? "" : ", ") + std::string(kind->name()) + " (" +
             kind->Endings() + ")";
  }
  throw InputError({model, 0, 0}, "not a model druba reads: the kinds are " + known);
}

namespace {

// --time-limit and --memory-limit.
void AddLimitOptions(CLI::App* app, RunOptions& o) {
  o.time_limit_s = run::kDefaultTimeLimitS;
  o.time_limit_default = true;
  app->add_option_function<double>(
         "--time-limit",
         [&o](double seconds) {
           o.time_limit_s = seconds;
           o.time_limit_default = false;
         },
         fmt::format("stop with 'unknown' after SEC seconds (default {:g}; 0: no limit)",
                     run::kDefaultTimeLimitS))
      ->check(front::Limit());
  app->add_option("--memory-limit", o.memory_limit_mb,
                  "stop with 'unknown' above MB resident (0, the default: 0.9 of the machine's)")
      ->check(front::Limit());
}

// The options of verify and test (and the model argument); each kind's groups are made in turn.
void AddCommonOptions(CLI::App* app, RunOptions& o) {
  app->add_option("model", o.model, "the model: a CPDS (.pds) or an integer program (.drb)")
      ->required();
  app->add_flag("--json", o.json, "print one JSON object on stdout");
  app->add_option("--json-out", o.json_out, "also write that JSON object to a file")
      ->check(NotEmpty());
  app->add_option("--trace-out", o.trace_out, "write a violation's trace as JSON")
      ->check(NotEmpty());
  app->add_flag("--deadlock", o.deadlock,
                "also a violation: a reached state where no thread can move and some thread has "
                "not finished (CPDS: its stack is not empty; .drb: it is not at `end` or at a "
                "label starting with `end`). For .drb programs only exhaustion proves its "
                "absence");
  app->add_flag("--shortest", o.shortest,
                "report a violation with the fewest statements of any violating run (a "
                "breadth-first search under free scheduling after the violation is found: up to "
                "a whole explicit search, within the limits). By default that search gets as "
                "many successor calls as the run made (at most about four million), and when it "
                "does not finish the trace found is shortened by dropping statements while it "
                "still fails");
  app->add_flag("--no-trace", o.no_trace,
                "report a violation without its trace (traces cost no memory: a violation's is "
                "found backwards over the stored states, which takes time)");
  app->add_option("--dot", o.dot,
                  "write the reached abstract states and the abstract transitions between them "
                  "(Graphviz; at most 300 states)")
      ->check(NotEmpty());
  app->add_option("--schedule-svg", o.schedule_svg,
                  "draw the path the driver took through the (rounds, delays) plane as SVG")
      ->check(NotEmpty());
  app->add_option("--trace-svg", o.trace_svg,
                  "draw a violation's trace as a sequence chart (SVG: a column per thread, a row "
                  "per statement)")
      ->check(NotEmpty());
  app->add_flag("--progress", o.progress,
                "a progress line on stderr about once a second (default when stderr is a "
                "terminal)");
  app->add_option("--dump-abstract", o.dump_abstract,
                  "write the reached abstract states, one per line, sorted")
      ->check(NotEmpty());
  AddLimitOptions(app, o);
  app->add_option("--jobs", o.jobs,
                  "threads that expand each frontier (default 0: one per core, used while "
                  "measured faster than one); the verdict, the reached states and the trace do "
                  "not depend on it")
      ->check(CLI::Range(0, 64));
}

// An option whose value names an enumerator, parsed straight into `target`: the names are the
// library's own (`name`), so they are written once; CLI11 checks them first, in `all`'s order.
template <class Enum, std::size_t N>
void AddEnumOption(CLI::App* app, const std::string& flag, Enum& target, const Enum (&all)[N],
                   std::string_view (*name)(Enum), const std::string& help) {
  std::map<std::string, Enum> by_name;
  std::vector<std::string> names;
  for (const Enum value : all) {
    names.emplace_back(name(value));
    by_name.emplace(names.back(), value);
  }
  app->add_option_function<std::string>(
         flag, [&target, by_name](const std::string& value) { target = by_name.at(value); }, help)
      ->check(CLI::IsMember(names));
}

void AddVerifyOptions(CLI::App* verify, RunOptions& options) {
  constexpr Mode kModes[] = {Mode::kDruba, Mode::kAi, Mode::kNaive, Mode::kExplicit};
  AddEnumOption(verify, "--mode", options.mode, kModes, ModeName,
                "druba (default); ai: closure under all actions after every raise; naive: every "
                "R(r,d) from scratch; explicit: all interleavings, no bounds");
  using run::UpperBound;
  constexpr UpperBound kBounds[] = {UpperBound::kAuto, UpperBound::kJoint, UpperBound::kStatic,
                                    UpperBound::kOff};
  AddEnumOption(verify, "--upper-bound", options.upper_bound, kBounds, run::UpperBoundName,
                "the sandwich proof (mode druba): compute O, an upper bound of the reachable "
                "abstract states closed under every action, and answer safe as soon as the "
                "reached states, closed under the thread symmetry, cover it. joint: pops "
                "(CPDS) by the may-lie-below relation computed with O, or (.drb, fixed thread "
                "count) the all-SAT post, O computed first; static (CPDS): a relation that "
                "ignores which states are reached; off: the paper's proof alone; auto "
                "(default): joint for CPDS, off for .drb (each abstract successor there is a "
                "solver query, dearer than most explorations)");
  verify
      ->add_option("--exhaust-share", options.exhaust_share,
                   "when the closure test fails (mode druba), the exact search goes on towards "
                   "exhaustion, where every reachable state is explored and the verdict needs no "
                   "abstraction: for at most this many times the successor calls spent before the "
                   "test, counted as at least 262,144 (default 4: at least about a million; 0: the "
                   "paper's algorithm alone). Every run ends; a state space that is not finite "
                   "ends at the budget with 'unknown'")
      ->check(CLI::NonNegativeNumber);
  verify
      ->add_option(
          "--symmetric-search", options.symmetric_search,
          "with interchangeable threads, search over one state per orbit of the thread symmetry "
          "under free scheduling (on, the default): CPDS, for the sandwich proof's lower bound "
          "(O computed first); .drb at one thread count, for the exact search after a failed "
          "closure test. off: the Round-Robin search alone")
      ->check(CLI::IsMember({"on", "off"}));
  verify
      ->add_option("--certificate", options.certificate,
                   "write the certificate of a safe verdict: the final abstract set and what the "
                   "proof assumed (CPDS: the may-lie-below relation; .drb: the abstraction, for "
                   "one thread count or every count), or after exhaustion the reachable states, "
                   "which `druba check` tests without this engine (docs/certificates.md)")
      ->check(NotEmpty());
}

void AddTestOptions(CLI::App* test, RunOptions& options) {
  test->add_option("--rounds", options.rounds, "round bound (default 20)");
  test->add_option("--delays", options.delays,
                   "delay bound; without it, delay budgets 0, 1, 2, ... are tried in turn and the "
                   "smallest that exposes a violation is reported");
  test->add_option("--max-delays", options.max_delays,
                   "the largest delay budget iterative deepening tries (default 10)");
}

void AddReplayOptions(CLI::App* replay, RunOptions& options) {
  replay->add_option("model", options.model, "the model (.pds or .drb)")->required();
  replay->add_option("--trace", options.replay_trace, "the trace file")
      ->required()
      ->check(NotEmpty());
}

void AddCheckOptions(CLI::App* check, RunOptions& options) {
  check
      ->add_option("model", options.model,
                   "the model (.drb, or .pds with the same --init, --spec or --target as when "
                   "it was certified)")
      ->required();
  check->add_option("--certificate", options.certificate, "the certificate file")
      ->required()
      ->check(NotEmpty());
  // The model options of the verify line, checked against the certificate's claim; the search
  // options (bounds, modes, limits) do not apply to a check.
  check->footer(
      "check takes the model options of verify (--threads, --top, --deadlock, --init, --spec, "
      "--target), which must agree with the certificate, and --time-limit and --memory-limit; "
      "verify's search options do not apply");
  check->add_flag("--deadlock", options.deadlock, "the certificate must claim deadlock freedom");
  AddLimitOptions(check, options);
}

}  // namespace

Commands AddCommands(CLI::App& app, RunOptions& options, std::span<FrontEnd* const> kinds,
                     std::span<const Command> which) {
  Commands out;
  const auto add = [&](Command command, const char* help, void (*own)(CLI::App*, RunOptions&)) {
    if (std::find(which.begin(), which.end(), command) == which.end()) return;
    CLI::App* sub = app.add_subcommand(std::string(run::CommandName(command)), help);
    if (command == Command::kVerify || command == Command::kTest) AddCommonOptions(sub, options);
    own(sub, options);
    for (FrontEnd* kind : kinds) {
      CLI::Option_group* group = sub->add_option_group(std::string(kind->group()));
      kind->AddOptions(command, *group);
      out.groups.push_back({kind, group});
    }
    out.apps[command] = sub;
  };
  add(Command::kVerify, "prove the model safe (or find a violation) under every interleaving",
      AddVerifyOptions);
  add(Command::kTest, "explore R(rounds, delays) only: a bug hunt with a fixed budget",
      AddTestOptions);
  add(Command::kReplay,
      "re-execute a saved trace (--trace-out) on the model and confirm the violation",
      AddReplayOptions);
  add(Command::kCheck,
      "check a certificate (verify --certificate) against the model, independently of "
      "the engine that proved it: exit 0 valid, 10 invalid (naming the condition), 2 bad "
      "input",
      AddCheckOptions);
  return out;
}

void CheckKindOptions(const std::vector<KindGroup>& groups, const FrontEnd& kind,
                      const std::string& model) {
  for (const KindGroup& entry : groups) {
    if (entry.kind == &kind) continue;
    for (const CLI::Option* option : entry.group->get_options()) {
      if (option->count() == 0) continue;
      throw InputError({option->get_name(), 0, 0}, "this option is for " +
                                                       std::string(entry.kind->name()) + ", and " +
                                                       model + " is " + std::string(kind.name()));
    }
  }
}

namespace {

// DRUBA_DEBUG_SOLVER=1 (every solver query and model) and DRUBA_DEBUG_REFINE=1 (every candidate,
// break, choice and dead end of refinement) in the environment: those lines on stderr.
run::Sinks SinksFor(const RunOptions& options) {
  const auto to_stderr = [](const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
  };
  run::Sinks sinks;
  sinks.interrupted = &g_interrupted;
  if (options.progress) sinks.progress = to_stderr;
  if (std::getenv("DRUBA_DEBUG_SOLVER") != nullptr) sinks.solver_log = to_stderr;
  if (std::getenv("DRUBA_DEBUG_REFINE") != nullptr) sinks.refine_log = to_stderr;
  return sinks;
}

}  // namespace

int Deliver(const run::Outcome& outcome) {
  for (const std::string& warning : outcome.warnings) std::cerr << warning << "\n";
  if (outcome.report) {
    const run::Report& report = *outcome.report;
    // A file that cannot be written does not cost the verdict: the report is printed, then what
    // failed, and the exit code is an input error's.
    std::string unwritten;
    try {
      for (const std::string& warning : run::WriteOutputFiles(report)) std::cerr << warning << "\n";
    } catch (const InputError& e) {
      unwritten = e.what();
    }
    std::cout << (report.options.json ? run::JsonReport(report) : run::TextReport(report));
    std::cout.flush();
    if (!unwritten.empty()) {
      std::cerr << unwritten << "\n";
      return exit_code::kInput;
    }
    return ExitCodeFor(report.verdict);
  }
  std::cout << outcome.text;
  switch (outcome.kind) {
    case run::Outcome::Kind::kReplayConfirmed:
      return exit_code::kViolation;
    case run::Outcome::Kind::kCertificateValid:
      return exit_code::kSafe;
    case run::Outcome::Kind::kCertificateInvalid:
      return exit_code::kInvalidCertificate;
    case run::Outcome::Kind::kCheckStopped:
      return exit_code::kUnknown;
    case run::Outcome::Kind::kReport:
      break;
  }
  return exit_code::kInternal;
}

int Guarded(const std::function<int()>& command) {
  try {
    const int code = command();
    std::cout.flush();
    if (!std::cout) {  // e.g. a full disk: the verdict was not delivered
      std::cerr << "druba: cannot write the report to standard output\n";
      return exit_code::kOutput;
    }
    return code;
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return exit_code::kInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "druba: out of memory; rerun with --memory-limit to stop cleanly\n";
    return exit_code::kInternal;
  } catch (const std::exception& e) {
    std::cerr << "druba: internal error: " << e.what() << "\n";
    return exit_code::kInternal;
  } catch (...) {  // nothing a library throws may end the process with a signal
    std::cerr << "druba: internal error: an exception of an unknown type\n";
    return exit_code::kInternal;
  }
}

int Main(int argc, char** argv, std::span<run::FrontEnd* const> kinds,
         std::span<const Tool> tools) {
  CLI::App app{"druba: delay-bounded testing that grows into verification"};
  app.require_subcommand(1);
  RunOptions options;
  constexpr Command kAll[] = {Command::kVerify, Command::kTest, Command::kReplay, Command::kCheck};
  const Commands commands = AddCommands(app, options, kinds, kAll);
  std::vector<const CLI::App*> tool_apps;
  for (const Tool& tool : tools) tool_apps.push_back(tool.add(app));
  const CLI::App& check = *commands.apps.at(Command::kCheck);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    if (check.parsed() && code != 0) std::cerr << check.get_footer() << "\n";
    return code == 0 ? 0 : exit_code::kUsage;
  }
  for (std::size_t i = 0; i < tools.size(); ++i) {
    if (tool_apps[i]->parsed()) return Guarded(tools[i].run);
  }
  for (const auto& [command, sub] : commands.apps) {
    if (sub->parsed()) options.command = command;
  }
  // SIGINT, SIGTERM (timeout, schedulers, CI) and SIGHUP end a run cleanly: `unknown`, the
  // statistics and a valid report, exit 5.
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
  std::signal(SIGHUP, OnInterrupt);
  if (isatty(STDERR_FILENO) != 0) options.progress = true;
  FrontEnd* kind = nullptr;
  if (const int code = Guarded([&] {
        kind = &KindOf(kinds, options.model);
        CheckKindOptions(commands.groups, *kind, options.model);
        return 0;
      });
      code != 0) {
    return code;
  }
  if (const std::string wrong = kind->CheckUsage(options); !wrong.empty()) {
    std::cerr << wrong << "\n";
    return exit_code::kUsage;
  }
  return Guarded([&] { return Deliver(kind->Run(options, SinksFor(options))); });
}

}  // namespace druba::cli
