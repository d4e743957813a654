// The TCgen trace-specification language: the EBNF of Figure 4 in Burtscher &
// Sam, "Automatic Generation of High-Performance Trace Compressors" (2005),
// plus '#' comments to the end of a line. Case-sensitive.
//
// A few places are deliberately looser than Figure 4 so that the semantic
// checker, which knows the spans, can explain a mistake precisely instead of
// the parser reporting a bare "unexpected token":
// - header and field statements share one rule, since both begin with
//   "N-Bit"; keeping them apart would make the parser decide four tokens
//   ahead and lose track of what it expected. The checker requires the
//   header (optional, per the brief) to come first and at most once, and at
//   least one field;
// - a field may list no predictors;
// - the PC statement may be missing;
// - a predictor is a name, an optional order and [n]: the checker looks the
//   name up among the predictor kinds tcgen knows (generator/kinds/), so that
//   adding a kind needs no grammar change and "STRIDE[1]" gets an error that
//   lists the known kinds.
//
// Beyond Figure 4, "32-Bit Ids;" codes the records as ids, a field may be named, and a name may declare an array of
// like fields ("64-Bit Field 13 source_memory[4] = {...};"); the PC
// statement may name its field. A name may be any word, keywords included,
// so that the checker can say why "Header" or "class" cannot name a field.
grammar TcgenSpec;

description
    : TCGEN TRACE SPECIFICATION SEMI declaration* pcDefinition? EOF
    ;

declaration
    : NUMBER MINUS BIT (headerRest | idsRest | fieldRest)
    ;

headerRest
    : HEADER SEMI
    ;

// "32-Bit Ids;": each record is coded as the 32-bit id of its value among
// the distinct records so far, the records' first appearances through the
// fields (docs/spec-language.md, "Records as ids").
idsRest
    : IDS SEMI
    ;

fieldRest
    : FIELD NUMBER (fieldName arraySize?)? EQUALS LBRACE levelSizes? COLON predictors? RBRACE SEMI
    ;

fieldName
    : WORD | TCGEN | TRACE | SPECIFICATION | BIT | HEADER | IDS | FIELD | PC | L1 | L2
    ;

arraySize
    : LBRACK NUMBER RBRACK
    ;

levelSizes
    : levelSize (COMMA levelSize)?
    ;

levelSize
    : L1 EQUALS NUMBER
    | L2 EQUALS NUMBER
    ;

predictors
    : predictor (COMMA predictor)*
    ;

predictor
    : WORD NUMBER? LBRACK NUMBER RBRACK
    ;

pcDefinition
    : PC EQUALS FIELD (NUMBER | fieldName) SEMI
    ;

TCGEN         : 'TCgen' ;
TRACE         : 'Trace' ;
SPECIFICATION : 'Specification' ;
BIT           : 'Bit' ;
HEADER        : 'Header' ;
IDS           : 'Ids' ;
FIELD         : 'Field' ;
PC            : 'PC' ;
L1            : 'L1' ;
L2            : 'L2' ;

SEMI   : ';' ;
MINUS  : '-' ;
EQUALS : '=' ;
LBRACE : '{' ;
RBRACE : '}' ;
LBRACK : '[' ;
RBRACK : ']' ;
COLON  : ':' ;
COMMA  : ',' ;

NUMBER : [0-9]+ ;

// A predictor or a field name. Trailing digits are a predictor's order: the
// parser splits "FCM3" into the name FCM and the order 3. A misspelt keyword
// such as "Feild" becomes one token the error can quote.
WORD : [A-Za-z_] [A-Za-z_0-9]* ;

// "# Encoding: tcgen --disable=NAMES" is the comment tcgen writes after a spec
// built with passes that change the encoding turned off (generator/backend/
// encoding.hpp). It reaches the front end on the hidden channel, so that the
// spec a .tcz stores regenerates its decompressor; first, so that it wins
// over COMMENT, which matches the same text.
ENCODING   : '# Encoding:' ~[\r\n]* -> channel(HIDDEN) ;
COMMENT    : '#' ~[\r\n]* -> skip ;
WHITESPACE : [ \t\r\n\f]+ -> skip ;
