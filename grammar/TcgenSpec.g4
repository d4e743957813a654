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
// - the PC statement may be missing.
grammar TcgenSpec;

description
    : TCGEN TRACE SPECIFICATION SEMI declaration* pcDefinition? EOF
    ;

declaration
    : NUMBER MINUS BIT (headerRest | fieldRest)
    ;

headerRest
    : HEADER SEMI
    ;

fieldRest
    : FIELD NUMBER EQUALS LBRACE levelSizes? COLON predictors? RBRACE SEMI
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
    : DFCM NUMBER LBRACK NUMBER RBRACK
    | FCM NUMBER LBRACK NUMBER RBRACK
    | LV LBRACK NUMBER RBRACK
    ;

pcDefinition
    : PC EQUALS FIELD NUMBER SEMI
    ;

TCGEN         : 'TCgen' ;
TRACE         : 'Trace' ;
SPECIFICATION : 'Specification' ;
BIT           : 'Bit' ;
HEADER        : 'Header' ;
FIELD         : 'Field' ;
PC            : 'PC' ;
L1            : 'L1' ;
L2            : 'L2' ;
DFCM          : 'DFCM' ;
FCM           : 'FCM' ;
LV            : 'LV' ;

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

// Letters only, so that "FCM3" still lexes as FCM followed by 3 while a
// misspelt keyword such as "Feild" becomes one token the error can quote.
WORD : [A-Za-z_]+ ;

COMMENT    : '#' ~[\r\n]* -> skip ;
WHITESPACE : [ \t\r\n\f]+ -> skip ;
