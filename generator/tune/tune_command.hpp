#pragma once
// `tcgen tune SAMPLE (--record=LAYOUT | --spec=FILE) [options]`: suggests
// predictors for a trace format by measuring real candidates on a sample
// (TCgen paper §7.5). Prints the candidates measured on standard error and
// the best spec on standard output (or -o FILE).

namespace tcgen::tune {

// argv[0] is "tune". Returns the exit status: 0 success, 1 a user error
// (bad arguments, unreadable sample, missing or failing compiler), 2 an
// internal error.
int tune_main(int argc, char** argv);

}  // namespace tcgen::tune
