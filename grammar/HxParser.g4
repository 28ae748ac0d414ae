// The hx text format (a Relay 0.0.5 dialect): docs/ir-format.md sections 2-3.
//
// Every decision is LL(1) or LL(2) so that SLL prediction never needs to look
// past the start of an expression. No embedded actions: lib/Parser/IRBuilder
// turns parse trees into IR.
//
// lib/Parser/Parser.cpp drives this grammar one top-level piece at a time (the
// header, each `def` head, each statement of a function body, the metadata
// section) and frees each parse tree once it has been turned into IR, so the
// memory used for parse trees does not grow with the size of the input. The
// pieces are invoked in exactly the order `module` spells out.
parser grammar HxParser;

options { tokenVocab = HxLexer; }

module     : header defn* metadata? EOF ;
header     : ATTR_OPEN IDENT EQUAL STRING RBRACKET ;

defn       : defnHead body RBRACE ;
defnHead   : DEF GLOBAL LPAREN paramList? RPAREN (ARROW type)? LBRACE ;

// Parameters, and function attributes written among them
// (`virtual_device=meta[VirtualDevice][1]`, `Primitive=1`).
paramList  : paramItem (COMMA paramItem)* ;
paramItem  : LOCAL (LBRACE attrList? RBRACE)? (COLON type)?  # ParamDecl
           | IDENT EQUAL attrValue                            # FuncAttr
           ;

// A scope: free variables, then bindings, then the result expression.
body       : freeVar* stmt* expr ;
freeVar    : FREE_VAR LOCAL COLON type SEMI ;
stmt       : LOCAL EQUAL expr SEMI                        # GraphBinding
           | LET LOCAL (COLON type)? EQUAL expr SEMI      # LetBinding
           ;

expr       : primary postfix* ;
postfix    : LPAREN argList? RPAREN   # CallSuffix
           | PROJ                     # ProjSuffix
           ;
argList    : arg (COMMA arg)* ;
arg        : IDENT EQUAL attrValue    # KeywordArg
           | expr                     # PositionalArg
           ;

primary    : LOCAL                                              # LocalRef
           | GLOBAL                                             # GlobalRef
           | IDENT                                              # OpRef
           | NUMBER                                             # NumberLit
           | (TRUE | FALSE)                                     # BoolLit
           | metaRef                                            # MetaExpr
           // `()`, `(e)`, `(e,)`, `(e1, e2)`, and `(let %x = v; %x)`.
           | LPAREN (body (COMMA (expr (COMMA expr)* COMMA?)?)?)? RPAREN  # ParenExpr
           | IF LPAREN expr RPAREN LBRACE body RBRACE
             ELSE LBRACE body RBRACE                            # IfExpr
           | FN LPAREN paramList? RPAREN (ARROW type)?
             LBRACE body RBRACE                                 # FnExpr
           ;

attrList   : attr (COMMA attr)* ;
attr       : IDENT EQUAL attrValue ;
attrValue  : NUMBER                                             # NumberAttr
           | (TRUE | FALSE)                                     # BoolAttr
           | STRING                                             # StringAttr
           | NONE                                               # NoneAttr
           | IDENT                                              # IdentAttr
           | metaRef                                            # MetaAttr
           | LBRACKET (attrValue (COMMA attrValue)*)? RBRACKET  # ListAttr
           | LPAREN (attrValue (COMMA attrValue)* COMMA?)? RPAREN  # TupleAttr
           ;
metaRef    : META LBRACKET IDENT RBRACKET LBRACKET NUMBER RBRACKET ;

type       : IDENT LBRACKET LPAREN dimList? RPAREN COMMA IDENT RBRACKET  # TensorType
           | IDENT                                                   # ScalarType
           | LPAREN (type (COMMA (type (COMMA type)* COMMA?)?)?)? RPAREN # TupleType
           | FN LPAREN (type (COMMA type)*)? RPAREN ARROW type         # FuncType
           ;
dimList    : dim (COMMA dim)* COMMA? ;
dim        : NUMBER      # StaticDim
           | QUESTION    # DynamicDim
           ;

// The `#[metadata]` section: JSON.
metadata   : METADATA json ;
json       : LBRACE (jsonMember (COMMA jsonMember)*)? RBRACE   # JsonObject
           | LBRACKET (json (COMMA json)*)? RBRACKET           # JsonArray
           | STRING                                            # JsonString
           | NUMBER                                            # JsonNumber
           | (J_TRUE | J_FALSE)                                # JsonBool
           | J_NULL                                            # JsonNull
           ;
jsonMember : STRING COLON json ;
