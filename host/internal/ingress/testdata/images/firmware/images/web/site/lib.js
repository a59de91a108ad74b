// lib.js: served as br to clients that accept it
export const answer = 42;
