// The cursor: a path of (rule, index) frames from the start rule down to the
// terminal after the cursor. A step moves the deepest frame that can move
// and descends again to the leftmost (forward) or rightmost (backward)
// terminal below it; every rule but the start has two or more symbols, so a
// whole walk visits each node of the parse tree at most twice.

#include <tcgen/wpp/grammar.hpp>

namespace tcgen::wpp {

Cursor::Cursor(const Grammar& grammar, std::uint64_t position) : grammar_(&grammar) {
    seek(position);
}

void Cursor::seek(std::uint64_t position) {
    position_ = position < grammar_->length() ? position : grammar_->length();
    frames_.clear();
    if (position_ < grammar_->length()) {
        descend(position_);
    }
}

void Cursor::descend(std::uint64_t position) {
    std::uint32_t rule = grammar_->start_rule();
    for (;;) {
        const Symbol* body = grammar_->body(rule);
        const std::size_t size = grammar_->body_size(rule);
        for (std::size_t index = 0; index < size; ++index) {
            const std::uint64_t length = is_rule(body[index]) ? grammar_->expanded_length(rule_of(body[index])) : 1;
            if (position < length) {
                frames_.push_back(Frame{rule, index});
                break;
            }
            position -= length;
        }
        const Symbol symbol = body[frames_.back().index];
        if (!is_rule(symbol)) {
            return;
        }
        rule = rule_of(symbol);
    }
}

void Cursor::descend_leftmost() {
    for (;;) {
        const Frame& top = frames_.back();
        const Symbol symbol = grammar_->body(top.rule)[top.index];
        if (!is_rule(symbol)) {
            return;
        }
        frames_.push_back(Frame{rule_of(symbol), 0});
    }
}

void Cursor::descend_rightmost() {
    for (;;) {
        const Frame& top = frames_.back();
        const Symbol symbol = grammar_->body(top.rule)[top.index];
        if (!is_rule(symbol)) {
            return;
        }
        const std::uint32_t child = rule_of(symbol);
        frames_.push_back(Frame{child, grammar_->body_size(child) - 1});
    }
}

bool Cursor::next(std::uint32_t& symbol) {
    if (frames_.empty()) {
        return false;
    }
    const Frame& top = frames_.back();
    symbol = terminal_of(grammar_->body(top.rule)[top.index]);
    ++position_;
    while (!frames_.empty() && frames_.back().index + 1 == grammar_->body_size(frames_.back().rule)) {
        frames_.pop_back();
    }
    if (!frames_.empty()) {
        ++frames_.back().index;
        descend_leftmost();
    }
    return true;
}

bool Cursor::previous(std::uint32_t& symbol) {
    if (position_ == 0) {
        return false;
    }
    if (frames_.empty()) {
        // At the end: the path to the last terminal.
        const std::uint32_t start = grammar_->start_rule();
        frames_.push_back(Frame{start, grammar_->body_size(start) - 1});
        descend_rightmost();
    } else {
        while (frames_.back().index == 0) {
            frames_.pop_back();  // never empties: position_ > 0, so a symbol lies before
        }
        --frames_.back().index;
        descend_rightmost();
    }
    --position_;
    const Frame& top = frames_.back();
    symbol = terminal_of(grammar_->body(top.rule)[top.index]);
    return true;
}

}  // namespace tcgen::wpp
