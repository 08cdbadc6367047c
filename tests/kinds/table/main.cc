// druba with a third model kind in its table: the command line of cli/main.cc, the transition
// table (table.h) added as one more row, and nothing else changed.
#include "cli/command_line.h"
#include "front/cpds.h"
#include "front/drb.h"
#include "table.h"

int main(int argc, char** argv) {
  druba::front::DrbFrontEnd drb;
  druba::front::CpdsFrontEnd cpds;
  druba::table::TableFrontEnd table;
  druba::run::FrontEnd* const kinds[] = {&drb, &cpds, &table};
  return druba::cli::Main(argc, argv, kinds, {});
}
