// Recent layout verdicts of one instance, by everything that decides them: the estimate, the preview and the create a
// client sends one after another lay the same copy out once (a check builds every layer, 0.2–1 s of CPU).
import type { LayoutProblem } from "../plugins";

/** At most `max` verdicts, the least recently used forgotten first (a Map keeps insertion order). */
export class LayoutVerdicts {
  private readonly known = new Map<string, LayoutProblem[]>();

  constructor(private readonly max = 256) {}

  get(key: string): LayoutProblem[] | undefined {
    const found = this.known.get(key);
    if (found) {
      this.known.delete(key);
      this.known.set(key, found);
    }
    return found;
  }

  set(key: string, problems: LayoutProblem[]): void {
    this.known.delete(key);
    this.known.set(key, problems);
    if (this.known.size > this.max) this.known.delete(this.known.keys().next().value!);
  }
}

/**
 * What decides a layout: the template, language and format, the prompt under the brand's colours, the brand's font and
 * logo (by its bytes), and the product's image (its key changes with every new photo or cut-out) and words.
 */
type Decides = {
  templateId: string;
  language: string;
  aspect: string;
  product: { id: string; imageKey: string; dekupeMaskKey: string | null; name: string; description: string | null };
};

export async function verdictKey(input: Decides, staged: { prompt: Record<string, unknown>; font?: string; logoPath?: string }): Promise<string> {
  const logo = staged.logoPath ? Bun.hash(await Bun.file(staged.logoPath).bytes()).toString(36) : null;
  const p = input.product;
  return JSON.stringify([
    input.templateId, input.language, input.aspect, staged.prompt, staged.font ?? null, logo,
    p.id, p.imageKey, p.dekupeMaskKey, p.name, p.description,
  ]);
}
