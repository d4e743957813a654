#include "generator/driver/output_choice.hpp"

#include <iostream>

namespace tcgen {
namespace {

// The help text of --emit: every output, the extension of its file and the
// flag users may know it by.
std::string emit_help() {
    std::string help = "What to write (the extension of its file in --output-dir):";
    for (const Emitter* emitter : emitters()) {
        help += "\n  " + std::string(emitter->name()) + " (" + std::string(emitter->extension()) +
                "): " + std::string(emitter->summary());
        if (emitter == emitters().front()) {
            help += "; the default";
        }
        if (!emitter->shorthand().empty()) {
            help += "; also " + std::string(emitter->shorthand());
        }
    }
    return help;
}

std::vector<std::string> emitter_names() {
    std::vector<std::string> names;
    for (const Emitter* emitter : emitters()) {
        names.emplace_back(emitter->name());
    }
    return names;
}

// Refuses an option that the chosen output does not read (--name for a
// compressor): ignoring it would hide the user's mistake.
bool option_is_used(const CLI::Option& option, const Emitter& chosen, bool (Emitter::*uses)() const) {
    if (option.count() == 0 || (chosen.*uses)()) {
        return true;
    }
    std::vector<std::string> users;
    for (const Emitter* emitter : emitters()) {
        if ((emitter->*uses)()) {
            users.emplace_back(emitter->name());
        }
    }
    std::cerr << "tcgen: error: " << option.get_name() << " is not used by --emit=" << chosen.name() << " (only by "
              << word_list(users, "and") << ")\n";
    return false;
}

}  // namespace

OutputChoice::OutputChoice(CLI::App& app) : emit_name_(emitters().front()->name()) {
    emit_ = app.add_option("--emit", emit_name_, emit_help())->check(CLI::IsMember(emitter_names()));
    for (const Emitter* emitter : emitters()) {
        if (!emitter->shorthand().empty()) {
            CLI::Option* flag = app.add_flag(std::string(emitter->shorthand()));
            flag->description("The same as --emit=" + std::string(emitter->name()) + ": print " +
                              std::string(emitter->summary()));
            shorthands_.push_back({emitter, flag});
        }
    }
    name_option_ = app.add_option("--name", name_,
                                  "The stem of a bidirectional stream's names: NAME.hpp, NAME.cpp, class Name "
                                  "(default: the spec's file name)");
    cpp_namespace_option_ = app.add_option("--namespace", cpp_namespace_,
                                           "The C++ namespace of a header's codec (default: the spec's file name) "
                                           "or of a bidirectional stream (default: tcgen_streams)");
}

const Emitter* OutputChoice::chosen() const {
    const Emitter* chosen = find_emitter(emit_name_);
    std::vector<std::string> spellings;  // of what was asked for, in order
    if (emit_->count() > 0) {
        spellings.push_back("--emit=" + emit_name_);
    }
    for (const Shorthand& shorthand : shorthands_) {
        if (shorthand.flag->count() == 0) {
            continue;
        }
        spellings.emplace_back(shorthand.emitter->shorthand());
        if (spellings.size() > 1 && shorthand.emitter != chosen) {
            std::cerr << "tcgen: error: " << word_list(spellings, "and") << " ask for different outputs; give one\n";
            return nullptr;
        }
        chosen = shorthand.emitter;
    }
    if (!option_is_used(*name_option_, *chosen, &Emitter::uses_name) ||
        !option_is_used(*cpp_namespace_option_, *chosen, &Emitter::uses_namespace)) {
        return nullptr;
    }
    return chosen;
}

}  // namespace tcgen
