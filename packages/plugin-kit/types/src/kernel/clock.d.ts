export type Clock = {
    now(): number;
};
export declare const systemClock: Clock;
export declare class ManualClock implements Clock {
    private ms;
    constructor(ms?: number);
    now(): number;
    advance(ms: number): void;
    set(ms: number): void;
}
/** Runs `fn` after `ms` unless the returned function is called first (setTimeout's shape; tests fire it themselves). */
export type SetTimer = (fn: () => void, ms: number) => () => void;
