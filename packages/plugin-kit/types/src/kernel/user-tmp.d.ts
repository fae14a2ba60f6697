/** `<tmp>/<name>-<uid>`, this user's folder of that name under the temp folder (neither made nor checked). */
export declare function userTmpPath(name: string): string;
/** userTmpPath(name), made (mode 0700) if missing; throws when it is not this user's alone. */
export declare function userTmpDir(name: string): string;
