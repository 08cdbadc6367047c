// `druba compose`: build a CPDS instance from the PDA blocks (thread templates) of another file.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace druba::cli {

struct ComposeOptions {
  std::string from;              // the .pds whose blocks are the templates
  std::vector<unsigned> blocks;  // which block (0-based) each thread of the new instance runs
  std::string init;              // the new instance's initial state, 'g|w0,w1,...'
  std::string out;               // OUT.pds; OUT.init is written beside it
};

// The subcommand `compose` and its options, added to `app`.
CLI::App* AddCompose(CLI::App& app, ComposeOptions& options);

// Writes the instance; throws InputError on bad input. Returns the exit code.
int RunCompose(const ComposeOptions& options);

}  // namespace druba::cli
