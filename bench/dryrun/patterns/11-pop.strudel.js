// bench/dryrun: pop, 104 bpm, in A
setcpm(104/4)

// drums: four on the floor, claps on two and four, 16th hats
$: s("bd*4").bank("RolandTR707").gain(.9)
$: s("~ cp ~ cp").bank("RolandTR707").room(.2)
$: s("hh*16").bank("RolandTR707").gain("[.5 .25]*8").pan(sine.range(.3, .7).slow(2))

// bass: a sub sine under everything
$: note("<a1 a1 [a1 ~] a2>").s("sine").sustain(1).release(.2).gain(.7)

// pad: long chords with a slow attack
$: chord("<F C Dm Bb>").voicing().s("sawtooth")
  .attack(.5).release(1.2).sustain(1).lpf(1200).room(.6).gain(.2)

// lead: an arpeggio with an octave echo on the off-beats
$: n("0 2 4 <6 7> 4 2 <1 3> 0").scale("A4:minor").s("sine")
  .off(1/8, x => x.add(n(7)).gain(.2)).lpf(2500).decay(.15).sustain(.3)
  .delay(.3).delaytime(.375).delayfeedback(.35).gain(.3)

// texture: a high ping every other cycle
$: note("a6").s("sine").mask("<1 0>").decay(.4).sustain(0).delay(.6).room(.8).gain(.1)
