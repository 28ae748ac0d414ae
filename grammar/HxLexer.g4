// Tokens of the hx text format (a Relay 0.0.5 dialect) and of its
// `#[metadata]` JSON section. See docs/ir-format.md.
//
// This grammar is the specification of the token set. hx parses with a
// hand-written lexer (lib/Parser/Lexer.cpp) that produces exactly these token
// types, because the generated lexer is the slowest part of an ANTLR parse;
// unittests/Parser/LexerTest.cpp checks that both lexers agree.
lexer grammar HxLexer;

// ---- punctuation ----------------------------------------------------------
ATTR_OPEN : '#[' ;
METADATA  : '#[metadata]' -> pushMode(JSON) ;
LPAREN    : '(' ;
RPAREN    : ')' ;
LBRACE    : '{' ;
RBRACE    : '}' ;
LBRACKET  : '[' ;
RBRACKET  : ']' ;
COMMA     : ',' ;
SEMI      : ';' ;
COLON     : ':' ;
EQUAL     : '=' ;
ARROW     : '->' ;
QUESTION  : '?' ;
// A tuple projection `.0`: one token, so that `%t.0.1` is two projections.
PROJ      : '.' DIGIT+ ;

// ---- keywords -------------------------------------------------------------
DEF      : 'def' ;
LET      : 'let' ;
IF       : 'if' ;
ELSE     : 'else' ;
FN       : 'fn' ;
FREE_VAR : 'free_var' ;
META     : 'meta' ;
TRUE     : 'True' ;
FALSE    : 'False' ;
NONE     : 'None' ;

// ---- names and literals ---------------------------------------------------
GLOBAL : '@' NAME ;
LOCAL  : '%' ( NAME | DIGIT+ ) ;
// Integers and floats with an optional sign and a dtype suffix:
// 3, -1, 3i64, 1f, 1.5f, 1e-3f, 2.5f64; infinities and NaN with a float
// suffix: inff, -inff, nanf, inff64 (before IDENT, which would take
// `inff` too).
NUMBER : '-'? DIGIT+ ( '.' DIGIT+ )? ( [eE] [+-]? DIGIT+ )? SUFFIX?
       | '-'? ( 'inf' | 'nan' ) FLOAT_SUFFIX ;
// Dotted names are one token: operators `nn.relu`, metadata kinds `relay.Constant`.
IDENT  : NAME ( '.' NAME )* ;
STRING : '"' ( ESC | ~["\\\r\n] )* '"' ;

// ---- skipped --------------------------------------------------------------
WS            : [ \t\r\n]+ -> skip ;
LINE_COMMENT  : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' ( BLOCK_COMMENT | . )*? '*/' -> skip ;

fragment NAME   : [a-zA-Z_] [a-zA-Z0-9_]* ;
fragment DIGIT  : [0-9] ;
fragment SUFFIX : [a-z] [a-z0-9]* ;
fragment FLOAT_SUFFIX : 'f' ( '16' | '32' | '64' )? | 'bf16' ;
fragment ESC    : '\\' ( ["\\/bfnrt] | 'u' HEX HEX HEX HEX ) ;
fragment HEX    : [0-9a-fA-F] ;

// ---- the metadata section: JSON to the end of the file ---------------------
mode JSON;
J_LBRACE   : '{' -> type(LBRACE) ;
J_RBRACE   : '}' -> type(RBRACE) ;
J_LBRACKET : '[' -> type(LBRACKET) ;
J_RBRACKET : ']' -> type(RBRACKET) ;
J_COMMA    : ',' -> type(COMMA) ;
J_COLON    : ':' -> type(COLON) ;
J_TRUE     : 'true' ;
J_FALSE    : 'false' ;
J_NULL     : 'null' ;
J_NUMBER   : '-'? ( '0' | [1-9] DIGIT* ) ( '.' DIGIT+ )? ( [eE] [+-]? DIGIT+ )? -> type(NUMBER) ;
J_STRING   : '"' ( ESC | ~["\\\u0000-\u001F] )* '"' -> type(STRING) ;
J_WS       : [ \t\r\n]+ -> skip ;
J_LINE_COMMENT  : '//' ~[\r\n]* -> skip ;
J_BLOCK_COMMENT : '/*' ( J_BLOCK_COMMENT | . )*? '*/' -> skip ;
