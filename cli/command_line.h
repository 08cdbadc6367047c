// druba's command line for any table of model kinds: the subcommands and their kind-free options
// (CLI11), each kind's options in a group of its own, the kind of the model chosen by its file
// name, the signal handler, and the outcome printed with its exit code. cli/main.cc gives it
// druba's kinds; a test gives it one more (tests/kinds).
#pragma once

#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "run/front_end.h"

namespace druba::cli {

// A subcommand of one tool beside the run commands (`compose`): added to `app`; `run` is called
// when it was parsed and returns the exit code.
struct Tool {
  std::function<CLI::App*(CLI::App& app)> add;
  std::function<int()> run;
};

// Each kind's option group in a subcommand.
struct KindGroup {
  const run::FrontEnd* kind;
  CLI::Option_group* group;
};

// The run commands `which` of `app`, each with its kind-free options (into `options`) and every
// kind's group (druba's; druba-mpi takes verify and test).
struct Commands {
  std::map<run::Command, CLI::App*> apps;
  std::vector<KindGroup> groups;
};
Commands AddCommands(CLI::App& app, run::RunOptions& options, std::span<run::FrontEnd* const> kinds,
                     std::span<const run::Command> which);

// The kind whose extension ends the model's name; an input error when none does (no kind
// catches every name, so a file is never read as the wrong kind).
run::FrontEnd& KindOf(std::span<run::FrontEnd* const> kinds, const std::string& model);

// An option of a kind other than the model's: an input error naming both.
void CheckKindOptions(const std::vector<KindGroup>& groups, const run::FrontEnd& kind,
                      const std::string& model);

// What a front end handed back, printed: warnings, the output files and the report, or its
// lines; the exit code.
int Deliver(const run::Outcome& outcome);

// Parses `argv`, runs the command on the model's kind and returns the process exit code.
int Main(int argc, char** argv, std::span<run::FrontEnd* const> kinds, std::span<const Tool> tools);

// Runs `command` and maps its outcome to the exit code: its own, or an input error (2), a report
// that could not be written (3) or an internal error (6).
int Guarded(const std::function<int()>& command);

}  // namespace druba::cli
