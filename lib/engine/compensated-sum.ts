/**
 * Neumaier's compensated summation: adds `value` to the running `sum`, carrying the rounding
 * error in `compensation`. Callers keep both numbers in locals (the hot loops inline it by hand);
 * this helper is for the places where a handful of sums are taken and clarity wins.
 */
export class CompensatedSum {
  private sum = 0;
  private compensation = 0;

  add(value: number): void {
    const total = this.sum + value;
    if (Math.abs(this.sum) >= Math.abs(value)) this.compensation += this.sum - total + value;
    else this.compensation += value - total + this.sum;
    this.sum = total;
  }

  get value(): number {
    return this.sum + this.compensation;
  }
}
