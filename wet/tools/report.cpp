#include "wet/tools/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <tcgen/wet/queries.hpp>

namespace tcgen::wet::report {
namespace {

constexpr std::size_t listed_rows = 15;       // functions, blocks
constexpr std::size_t listed_loads = 10;
constexpr std::size_t graph_blocks = 40;      // of the hottest function
constexpr std::size_t slice_items = 400;      // the slice's latest items drawn

std::string escaped(std::string_view text) {
    std::string out;
    for (const char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return out;
}

std::string hex(std::uint64_t value) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string text;
    do {
        text.insert(text.begin(), digits[value & 15]);
        value >>= 4;
    } while (value != 0);
    return "0x" + text;
}

// 1234567 as "1,234,567".
std::string grouped(std::uint64_t value) {
    std::string text = std::to_string(value);
    for (std::size_t at = text.size(); at > 3; at -= 3) {
        text.insert(at - 3, ",");
    }
    return text;
}

std::string fixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

// What the page says of a pc: "main+26 (histogram.c:16)", or nothing known.
std::string symbol_text(WholeExecutionTrace& wet, std::uint64_t pc) {
    const std::optional<Symbol> symbol = wet.symbol(pc);
    return symbol && (!symbol->function.empty() || !symbol->file.empty()) ? symbol->text() : "";
}

// A table cell holding a pc, which the page's script links to every other
// mention of it.
std::string pc_cell(std::uint64_t pc) {
    return "<td class=\"pc\" data-pc=\"" + hex(pc) + "\">" + hex(pc) + "</td>";
}

// A bar of `share` (0..1) of the column's width.
std::string bar(double share) {
    return "<td class=\"bar\"><div style=\"width:" + fixed(std::max(0.0, std::min(1.0, share)) * 100, 1) +
           "%\"></div></td>";
}

// The function pc is in, as the page groups blocks: its name, or its
// object's in parentheses where no function is known.
std::string function_of(WholeExecutionTrace& wet, std::uint64_t pc) {
    const std::optional<Symbol> symbol = wet.symbol(pc);
    return symbol && !symbol->function.empty() ? symbol->function
           : symbol && !symbol->object.empty() ? "(" + symbol->object + ")"
                                               : "(unknown)";
}

struct FunctionRow {
    std::string name;
    std::uint64_t instructions = 0;  // executed: a block's executions times its instructions
    std::uint64_t executions = 0;    // of its blocks
    std::size_t blocks = 0;
    std::uint64_t first_pc = UINT64_MAX;
};

// Executed instructions by function (by object where no function is known);
// none without symbols.
std::vector<FunctionRow> functions(WholeExecutionTrace& wet) {
    std::vector<FunctionRow> rows;
    if (!wet.has_symbols()) {
        return rows;
    }
    std::unordered_map<std::string, std::size_t> row_of;
    for (std::uint32_t id = 0; id < wet.block_count(); ++id) {
        const std::uint64_t executions = wet.block_executions(id);
        if (executions == 0) {
            continue;
        }
        const RawBlock& block = wet.block(id);
        const std::string name = function_of(wet, block.pc);
        const auto [at, added] = row_of.emplace(name, rows.size());
        if (added) {
            rows.push_back(FunctionRow{name});
        }
        FunctionRow& row = rows[at->second];
        row.instructions += executions * block.instructions;
        row.executions += executions;
        ++row.blocks;
        row.first_pc = std::min(row.first_pc, block.pc);
    }
    std::sort(rows.begin(), rows.end(), [](const FunctionRow& a, const FunctionRow& b) {
        return a.instructions != b.instructions ? a.instructions > b.instructions : a.name < b.name;
    });
    return rows;
}

std::string summary_section(WholeExecutionTrace& wet, const std::string& name) {
    const std::vector<LabelStats> stats = wet.stats();
    const LabelStats& total = stats.back();
    std::uint64_t instructions = 0;
    for (std::uint32_t id = 0; id < wet.block_count(); ++id) {
        instructions += wet.block_executions(id) * wet.block(id).instructions;
    }
    std::string html = "<section><h2>The run</h2><table class=\"facts\">";
    const auto fact = [&](const std::string& what, const std::string& value) {
        html += "<tr><th>" + escaped(what) + "</th><td>" + value + "</td></tr>";
    };
    fact("file", escaped(name));
    fact("executed blocks (timestamps)", grouped(wet.executed()));
    fact("executed instructions", grouped(instructions));
    fact("loads and stores executed", grouped(wet.events()));
    fact("static blocks, memory accesses", grouped(wet.block_count()) + ", " + grouped(wet.node_count()));
    fact("labels, raw (the paper's count)", grouped(total.raw_bytes) + " bytes");
    fact("the WET", grouped(total.compressed_bytes) + " bytes, " +
                        (total.compressed_bytes == 0 ? std::string("-")
                                                     : fixed(double(total.raw_bytes) / double(total.compressed_bytes), 1) +
                                                           "&times; smaller"));
    fact("symbols", wet.has_symbols() ? "yes" : "none (the trace had no PREFIX.syms)");
    html += "</table><table><tr><th>labels</th><th>count</th><th>raw bytes</th><th>bytes in the WET</th></tr>";
    for (std::size_t row = 0; row + 1 < stats.size(); ++row) {
        html += "<tr><td>" + escaped(stats[row].name) + "</td><td class=\"n\">" + grouped(stats[row].labels) +
                "</td><td class=\"n\">" + grouped(stats[row].raw_bytes) + "</td><td class=\"n\">" +
                grouped(stats[row].compressed_bytes) + "</td></tr>";
    }
    return html + "</table></section>";
}

std::string functions_section(const std::vector<FunctionRow>& rows) {
    std::string html = "<section><h2>The hottest functions</h2>";
    if (rows.empty()) {
        return html + "<p>No symbols in this WET: trace with <code>tcgen-tracer --wet</code>, which writes "
                      "<code>PREFIX.syms</code>, to see functions.</p></section>";
    }
    std::uint64_t all = 0;
    for (const FunctionRow& row : rows) {
        all += row.instructions;
    }
    html += "<table><tr><th>function</th><th>executed instructions</th><th>share</th><th></th>"
            "<th>block executions</th><th>blocks</th></tr>";
    for (std::size_t i = 0; i < rows.size() && i < listed_rows; ++i) {
        const double share = all == 0 ? 0 : double(rows[i].instructions) / double(all);
        html += "<tr><td>" + escaped(rows[i].name) + "</td><td class=\"n\">" + grouped(rows[i].instructions) +
                "</td><td class=\"n\">" + fixed(share * 100, 1) + " %</td>" + bar(share) + "<td class=\"n\">" +
                grouped(rows[i].executions) + "</td><td class=\"n\">" + grouped(rows[i].blocks) + "</td></tr>";
    }
    return html + "</table></section>";
}

std::string blocks_section(WholeExecutionTrace& wet, const std::vector<TopRow>& top_rows) {
    std::string html = "<section><h2>The hottest blocks</h2><table><tr><th>block</th><th>first pc</th>"
                       "<th>where</th><th>executions</th><th></th><th>instructions</th></tr>";
    std::uint64_t most = 0;
    for (const TopRow& row : top_rows) {
        if (row.kind == 'B') {
            most = std::max(most, row.executions);
        }
    }
    for (const TopRow& row : top_rows) {
        if (row.kind != 'B') {
            continue;
        }
        html += "<tr><td class=\"n\">" + std::to_string(row.id) + "</td>" + pc_cell(row.pc) + "<td>" +
                escaped(symbol_text(wet, row.pc)) + "</td><td class=\"n\">" + grouped(row.executions) + "</td>" +
                bar(most == 0 ? 0 : double(row.executions) / double(most)) + "<td class=\"n\">" +
                std::to_string(wet.block(row.id).instructions) + "</td></tr>";
    }
    return html + "</table></section>";
}

std::string loads_section(WholeExecutionTrace& wet, const std::vector<TopRow>& top_rows) {
    std::string html = "<section><h2>The busiest loads</h2><table><tr><th>pc</th><th>where</th>"
                       "<th>executions</th><th>smallest value</th><th>largest value</th><th>distinct values</th>"
                       "<th>most frequent value</th><th>addresses</th></tr>";
    for (const TopRow& row : top_rows) {
        if (row.kind != 'L') {
            continue;
        }
        std::vector<std::uint64_t> values;
        std::vector<std::uint64_t> addresses;
        for (const Access& access : wet.accesses(row.pc)) {
            values.push_back(access.value);
            addresses.push_back(access.address);
        }
        std::sort(values.begin(), values.end());
        std::sort(addresses.begin(), addresses.end());
        std::uint64_t distinct = 0;
        std::uint64_t mode = 0;
        std::size_t mode_count = 0;
        for (std::size_t from = 0; from < values.size();) {
            std::size_t to = from;
            while (to < values.size() && values[to] == values[from]) {
                ++to;
            }
            ++distinct;
            if (to - from > mode_count) {
                mode = values[from];
                mode_count = to - from;
            }
            from = to;
        }
        const auto distinct_addresses =
            static_cast<std::uint64_t>(std::unique(addresses.begin(), addresses.end()) - addresses.begin());
        html += "<tr>" + pc_cell(row.pc) + "<td>" + escaped(symbol_text(wet, row.pc)) + "</td><td class=\"n\">" +
                grouped(row.executions) + "</td>";
        if (values.empty()) {
            html += "<td colspan=\"5\">-</td></tr>";
            continue;
        }
        html += "<td class=\"n\">" + hex(values.front()) + "</td><td class=\"n\">" + hex(values.back()) +
                "</td><td class=\"n\">" + grouped(distinct) + "</td><td class=\"n\">" + hex(mode) + " (" +
                fixed(100.0 * double(mode_count) / double(values.size()), 1) + " %)</td><td class=\"n\">" +
                grouped(distinct_addresses) + " distinct</td></tr>";
    }
    return html + "</table><p class=\"note\">Over every execution of each load (a load of several accesses: "
                  "all of them).</p></section>";
}

// An SVG drawing of boxes in a column, one per row, joined by arcs: forward
// ones (to a later row) on the right, backward ones on the left, each as
// thick as its count's order of magnitude and titled with it.
class ColumnGraph {
public:
    void box(const std::string& label, const std::string& pc, const std::string& kind) {
        boxes_.push_back({label, pc, kind});
    }
    void arc(std::size_t from, std::size_t to, std::uint64_t count, const std::string& kind) {
        arcs_.push_back({from, to, count, kind});
    }

    std::string svg() const {
        const double width = 980;
        const double height = top + row_height * double(boxes_.size()) + 20;
        std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + fixed(width, 0) + "\" height=\"" +
                          fixed(height, 0) + "\" viewBox=\"0 0 " + fixed(width, 0) + " " + fixed(height, 0) + "\">";
        std::uint64_t most = 1;
        for (const Arc& arc : arcs_) {
            most = std::max(most, arc.count);
        }
        for (const Arc& arc : arcs_) {
            const double y1 = middle(arc.from);
            const double y2 = middle(arc.to);
            const double reach = 18 + 9.0 * std::min<double>(40, std::abs(double(arc.to) - double(arc.from)));
            const bool forward = arc.to > arc.from;
            std::string path;
            if (arc.from == arc.to) {  // a loop on itself
                path = "M" + fixed(right, 0) + " " + fixed(y1 - 5, 1) + " C" + fixed(right + 40, 0) + " " +
                       fixed(y1 - 20, 1) + " " + fixed(right + 40, 0) + " " + fixed(y1 + 20, 1) + " " +
                       fixed(right, 0) + " " + fixed(y1 + 5, 1);
            } else {
                const double x = forward ? right : left;
                const double bend = forward ? x + reach : x - reach;
                path = "M" + fixed(x, 0) + " " + fixed(y1, 1) + " C" + fixed(bend, 1) + " " + fixed(y1, 1) + " " +
                       fixed(bend, 1) + " " + fixed(y2, 1) + " " + fixed(x, 0) + " " + fixed(y2, 1);
            }
            const double stroke = 0.8 + 4.2 * std::log10(1.0 + double(arc.count)) / std::log10(1.0 + double(most));
            out += "<path class=\"arc " + arc.kind + "\" d=\"" + path + "\" stroke-width=\"" + fixed(stroke, 2) +
                   "\" marker-end=\"url(#head)\"><title>" + grouped(arc.count) + "</title></path>";
        }
        for (std::size_t row = 0; row < boxes_.size(); ++row) {
            const Box& box = boxes_[row];
            const double y = top + row_height * double(row);
            out += "<g class=\"box " + box.kind + "\"" + (box.pc.empty() ? "" : " data-pc=\"" + box.pc + "\"") +
                   "><rect x=\"" + fixed(left, 0) + "\" y=\"" + fixed(y, 0) + "\" width=\"" + fixed(right - left, 0) +
                   "\" height=\"" + fixed(row_height - 8, 0) + "\" rx=\"4\"/><text x=\"" + fixed(left + 8, 0) +
                   "\" y=\"" + fixed(y + 17, 0) + "\">" + escaped(box.label) + "</text></g>";
        }
        out += "<defs><marker id=\"head\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" markerWidth=\"8\" "
               "markerHeight=\"8\" markerUnits=\"userSpaceOnUse\" orient=\"auto\"><path d=\"M0 0 L8 4 L0 8 z\"/></marker></defs>";
        return out + "</svg>";
    }

private:
    struct Box {
        std::string label, pc, kind;
    };
    struct Arc {
        std::size_t from, to;
        std::uint64_t count;
        std::string kind;
    };
    static constexpr double top = 10, row_height = 34, left = 230, right = 750;
    static double middle(std::size_t row) { return top + row_height * double(row) + (row_height - 8) / 2; }

    std::vector<Box> boxes_;
    std::vector<Arc> arcs_;
};

// The control flow among the blocks of the hottest function (or, without
// symbols, the hottest blocks), from one walk of the whole flow: how often
// each edge between two of them was taken, and into and out of them.
std::string control_flow_section(WholeExecutionTrace& wet, const std::vector<FunctionRow>& function_rows,
                                 const std::vector<TopRow>& top_rows) {
    std::vector<std::uint32_t> chosen;
    std::string title;
    if (!function_rows.empty()) {
        const std::string& name = function_rows.front().name;
        title = "Control flow of " + name + ", the hottest function";
        for (std::uint32_t id = 0; id < wet.block_count(); ++id) {
            if (function_of(wet, wet.block(id).pc) == name && wet.block_executions(id) != 0) {
                chosen.push_back(id);
            }
        }
    } else {
        title = "Control flow among the hottest blocks";
        for (const TopRow& row : top_rows) {
            if (row.kind == 'B') {
                chosen.push_back(row.id);
            }
        }
    }
    std::string note;
    if (chosen.size() > graph_blocks) {
        std::stable_sort(chosen.begin(), chosen.end(), [&](std::uint32_t a, std::uint32_t b) {
            return wet.block_executions(a) > wet.block_executions(b);
        });
        note = "The " + std::to_string(graph_blocks) + " most executed of its " + std::to_string(chosen.size()) +
               " blocks; the others count as elsewhere.";
        chosen.resize(graph_blocks);
    }
    std::sort(chosen.begin(), chosen.end(),
              [&](std::uint32_t a, std::uint32_t b) { return wet.block(a).pc < wet.block(b).pc; });
    std::unordered_map<std::uint32_t, std::size_t> row_of;  // block -> its row; row 0 is elsewhere
    for (std::size_t i = 0; i < chosen.size(); ++i) {
        row_of.emplace(chosen[i], i + 1);
    }
    const auto row = [&](std::uint32_t block) {
        const auto found = row_of.find(block);
        return found == row_of.end() ? std::size_t{0} : found->second;
    };
    std::map<std::pair<std::size_t, std::size_t>, std::uint64_t> taken;
    auto cursor = wet.control_flow(0);
    FlowStep step;
    std::optional<std::size_t> before;
    while (cursor.next(step)) {
        const std::size_t now = row(step.block);
        if (before && (*before != 0 || now != 0)) {
            ++taken[{*before, now}];
        }
        before = now;
    }
    ColumnGraph graph;
    graph.box("elsewhere", "", "other");
    for (const std::uint32_t id : chosen) {
        const RawBlock& block = wet.block(id);
        std::string label = "block " + std::to_string(id) + "  " + hex(block.pc);
        const std::string where = symbol_text(wet, block.pc);
        if (!where.empty()) {
            label += "  " + where;
        }
        graph.box(label + "  ×" + grouped(wet.block_executions(id)), hex(block.pc), "block");
    }
    for (const auto& [edge, count] : taken) {
        graph.arc(edge.first, edge.second, count, edge.first == 0 || edge.second == 0 ? "outer" : "inner");
    }
    return "<section><h2>" + escaped(title) + "</h2><p class=\"note\">Blocks by address; an arc on the right goes "
           "to a later address, on the left back (a loop), as thick as how often it was taken (hover for the "
           "count). " +
           escaped(note) + "</p>" + graph.svg() + "</section>";
}

// The latest items of the backward slice from the busiest load's last
// execution, as a graph of the instructions they are executions of: a box
// per instruction (with how many of the items are its), an arc from a load
// to the store it read from.
std::string slice_section(WholeExecutionTrace& wet, const std::vector<TopRow>& top_rows) {
    const auto load = std::find_if(top_rows.begin(), top_rows.end(), [](const TopRow& row) { return row.kind == 'L'; });
    std::string html = "<section><h2>A slice</h2>";
    if (load == top_rows.end() || load->executions == 0) {
        return html + "<p>No load executed: no slice to draw.</p></section>";
    }
    const std::uint64_t instance = wet.instance_count(load->pc);
    SliceWindow window;
    window.count = slice_items;
    const std::vector<SliceItem> items = wet.backward_slice(load->pc, instance, window);
    std::map<std::pair<char, std::uint64_t>, std::size_t> box_of;  // (kind, pc) -> box
    std::vector<std::pair<char, std::uint64_t>> boxes;
    std::vector<std::uint64_t> items_of;
    const auto box = [&](char kind, std::uint64_t pc) {
        const auto [at, added] = box_of.emplace(std::make_pair(kind, pc), boxes.size());
        if (added) {
            boxes.emplace_back(kind, pc);
            items_of.push_back(0);
        }
        return at->second;
    };
    std::map<std::pair<std::size_t, std::size_t>, std::uint64_t> defs;
    for (const SliceItem& item : items) {
        ++items_of[box(item.kind, item.pc)];
    }
    for (const SliceItem& item : items) {
        if (item.kind != 'L') {
            continue;
        }
        if (const std::optional<Def> def = wet.def_of(item.id, item.t)) {
            const std::size_t store = box('S', wet.node(def->node).pc);
            ++defs[{box_of.at({'L', item.pc}), store}];
        }
    }
    static const std::map<char, std::string> kinds = {
        {'L', "load"}, {'S', "store"}, {'R', "register write"}, {'B', "branch"}};
    ColumnGraph graph;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const auto [kind, pc] = boxes[i];
        std::string label = kinds.at(kind) + "  " + hex(pc);
        const std::string where = symbol_text(wet, pc);
        if (!where.empty()) {
            label += "  " + where;
        }
        label += items_of[i] == 0 ? "  (beyond the items drawn)" : "  ×" + grouped(items_of[i]);
        graph.box(label, hex(pc), kind == 'R' ? "reg" : kinds.at(kind));
    }
    for (const auto& [edge, count] : defs) {
        graph.arc(edge.first, edge.second, count, "def");
    }
    html += "<p class=\"note\">From the last of the " + grouped(instance) + " executions of the busiest load, " +
            hex(load->pc) + (symbol_text(wet, load->pc).empty() ? "" : " " + escaped(symbol_text(wet, load->pc))) +
            ": the slice's " + grouped(items.size()) + " latest items" +
            (items.size() == slice_items ? " (the walk stopped there)" : " (all of it)") +
            ", as the instructions they execute, in the order the slice first reaches them (top: the start). "
            "An arc joins a load to the store it read from.</p>";
    return html + graph.svg() + "</section>";
}

constexpr std::string_view style = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em auto; max-width: 1000px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.5em 0; } th, td { padding: 2px 10px; text-align: left; }
tr:nth-child(even) td { background: #f5f5f5; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
td.pc { font-family: monospace; } td.bar { width: 160px; } td.bar div { background: #4a7bd0; height: 10px; }
table.facts th { font-weight: normal; color: #555; } .note { color: #555; }
.hl, .hl td { background: #ffe28a !important; } g.hl rect { fill: #ffe28a; }
svg text { font: 12px monospace; } g.box rect { fill: #eef3fb; stroke: #4a7bd0; }
g.store rect { fill: #fbeeee; stroke: #c04a4a; } g.reg rect, g.branch rect { fill: #f2f2f2; stroke: #888; }
g.other rect { fill: #fff; stroke: #aaa; stroke-dasharray: 4 3; }
path.arc { fill: none; stroke: #4a7bd0; opacity: 0.75; } path.outer { stroke: #aaa; } path.def { stroke: #c04a4a; }
marker path { fill: #555; }
)";

// Links every mention of a pc (table cells, boxes) while the pointer rests
// on one; then marks the page ready, which the headless-browser test reads.
constexpr std::string_view script = R"(
function mark(pc, on) {
  document.querySelectorAll('[data-pc="' + pc + '"]').forEach(function (e) { e.classList.toggle('hl', on); });
}
document.querySelectorAll('[data-pc]').forEach(function (e) {
  e.addEventListener('mouseenter', function () { mark(e.dataset.pc, true); });
  e.addEventListener('mouseleave', function () { mark(e.dataset.pc, false); });
});
document.body.dataset.ready = 'yes';
)";

}  // namespace

std::string html(WholeExecutionTrace& wet, const std::string& name) {
    const std::vector<FunctionRow> function_rows = functions(wet);
    const std::vector<TopRow> top_rows = top(wet, std::max(listed_rows, listed_loads));
    std::vector<TopRow> loads;
    std::copy_if(top_rows.begin(), top_rows.end(), std::back_inserter(loads),
                 [](const TopRow& row) { return row.kind == 'L'; });
    if (loads.size() > listed_loads) {
        loads.resize(listed_loads);
    }
    std::string page = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>wet report: " +
                       escaped(name) + "</title><style>" + std::string(style) + "</style></head><body>";
    page += "<h1>wet report: " + escaped(name) + "</h1>";
    page += summary_section(wet, name);
    page += functions_section(function_rows);
    page += blocks_section(wet, top_rows);
    page += loads_section(wet, loads);
    page += control_flow_section(wet, function_rows, top_rows);
    page += slice_section(wet, top_rows);
    page += "<script>" + std::string(script) + "</script></body></html>\n";
    return page;
}

}  // namespace tcgen::wet::report
