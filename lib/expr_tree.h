/* expr_tree.h: the parsed form of an expression, shared by the parser (expr.c) and the evaluator
 * (expr_eval.c); nothing else includes it. */
#ifndef AUTOTUNE_EXPR_TREE_H
#define AUTOTUNE_EXPR_TREE_H

#include "expr.h"

typedef enum {
	T_END,
	T_INT,
	T_FLOAT,
	T_NAME,
	T_STR,
	T_OR,
	T_AND,
	T_EQ,
	T_NE,
	T_LT,
	T_LE,
	T_GT,
	T_GE,
	T_SHL,
	T_SHR,
	T_PLUS,
	T_MINUS,
	T_STAR,
	T_SLASH,
	T_PERCENT,
	T_NOT,
	T_LPAREN,
	T_RPAREN,
	T_COMMA,
} tok_kind;

typedef enum { F_MIN, F_MAX, F_CEIL_DIV, F_ABS, F_POW, F_FLOOR_DIV, F_MOD, F_SELECT } func_id;

typedef enum { N_INT, N_FLOAT, N_NAME, N_UNARY, N_BINARY, N_CALL, N_STR } node_kind;

/* Nodes live in one array and refer to each other by index, so the tree is freed in one go. */
typedef struct {
	node_kind kind;
	int op;     /* tok_kind of an operator, func_id of a call */
	int offset; /* the token an error is blamed on: operator, name, literal, function name */
	int a, b;   /* operands; for a call, a is the first argument and b the argument count */
	int next;   /* the following argument of a call, -1 after the last */
	int height;
	union {
		long long i;
		double f;
	} v;
} node;

struct expr {
	node *nodes;
	int nnodes;
	int root;
	size_t len;
	/* The source, then a second copy with a NUL after every identifier, which gives each name
	 * node a C string without an allocation of its own. */
	char text[];
};

/* An operator's text, by tok_kind, for messages. */
extern const char *const expr_op_text[];
/* Sets err (when not NULL) to a message at byte offset of the source. */
void expr_set_err(expr_error *err, int offset, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A name node's identifier as a C string; a string node's text is expr_name_of(e, nd) + 1. */
const char *expr_name_of(const expr *e, const node *nd);

#endif
